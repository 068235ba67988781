import type { Middleware } from "koa";
import { EngineBusy } from "../../../ports/errors.ts";
import type { AdmissionBudget } from "../admission-budget.ts";
import { errorResponseOf } from "../error-response.ts";
import { sendError } from "../respond.ts";

/**
 * What a request's body takes in memory while it waits for an engine, in multiples of its length:
 * the raw bytes (1) and the image as text (1) while it is parsed, then that text and the decoded
 * image (0.75) once the raw bytes are garbage.
 */
export const BODY_MEMORY_FACTOR = 2.5;

/**
 * Admission by memory, mounted before the JSON body is read: the request takes its share of the
 * budget (from Content-Length, or the route's limit when the length is not said up front) for as
 * long as it is handled. When the budget is full it is refused at once, 503 with Retry-After,
 * before a byte of its body is read: a client that sent `Expect: 100-continue` never sends it, and
 * one that sends it anyway has it discarded as it arrives (a connection closed on an unread upload
 * would be reset, and the client would see a lost connection instead of the 503). A body over the
 * route's limit passes on to the body reader, which refuses it with 413 without reading it.
 */
export const engineAdmission =
  (budget: AdmissionBudget, maxBodyBytes: number): Middleware =>
  async (ctx, next) => {
    const header = ctx.get("Content-Length");
    const declared = /^\d{1,15}$/.test(header) ? Number(header) : undefined;
    if (declared !== undefined && declared > maxBodyBytes) return next();
    const release = budget.tryTake((declared ?? maxBodyBytes) * BODY_MEMORY_FACTOR);
    if (release === undefined) {
      // The engines are full to what this instance can hold: the engines' own refusal, from the catalog.
      return sendError(ctx, errorResponseOf(new EngineBusy({ retryAfterSeconds: budget.retryAfterSeconds() })));
    }
    try {
      await next();
    } finally {
      release();
    }
  };
