import type { Context } from "koa";
import { EngineBusy } from "../../../ports/errors.ts";
import { sendError } from "../api/respond.ts";
import { declaredLength } from "../bodies/request-body.ts";
import { errorResponseOf } from "../errors/error-catalog.ts";
import type { AdmissionBudget } from "../server/admission-budget.ts";

/**
 * What a request's body takes in memory while it waits for an engine, in multiples of its length:
 * the raw bytes (1) and the image as text (1) while it is parsed, then that text and the decoded
 * image (0.75) once the raw bytes are garbage.
 */
export const BODY_MEMORY_FACTOR = 2.5;

/** Nothing to give back: a request over the route's limit holds no share (the body reader refuses it). */
const NOTHING_HELD = () => undefined;

/**
 * Admission by memory, before the JSON body is read: the request takes its share of the budget
 * (from Content-Length, or the route's limit when the length is not said up front) for as long as
 * it is handled; the function returned gives it back. When the budget is full it is refused at
 * once, 503 with Retry-After, before a byte of its body is read (undefined: answered): a client
 * that sent `Expect: 100-continue` never sends it, and one that sends it anyway has it discarded as
 * it arrives (a connection closed on an unread upload would be reset, and the client would see a
 * lost connection instead of the 503). A body over the route's limit passes on to the body reader,
 * which refuses it with 413 without reading it.
 */
export const admitByMemory = (ctx: Context, budget: AdmissionBudget, maxBodyBytes: number): (() => void) | undefined => {
  const declared = declaredLength(ctx.req);
  if (declared !== undefined && declared > maxBodyBytes) return NOTHING_HELD;
  const release = budget.tryTake((declared ?? maxBodyBytes) * BODY_MEMORY_FACTOR);
  // The engines are full to what this instance can hold: the engines' own refusal, from the catalog.
  if (release === undefined) sendError(ctx, errorResponseOf(new EngineBusy({ retryAfterSeconds: budget.retryAfterSeconds() })));
  return release;
};
