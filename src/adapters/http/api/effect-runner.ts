import { Cause, Effect, type Exit } from "effect";
import type { Context } from "koa";
import { CallerRequestId } from "../../../application/transformations/caller-request-id.ts";
import type { DependencyUnavailable } from "../../../ports/errors.ts";
import type { UndecodableEvent } from "../../../ports/event-store.ts";
import type { ApiError } from "../errors/error-catalog.ts";
import { sendFailure } from "./respond.ts";

/**
 * Runs a use case with the application's services; the HTTP adapter knows nothing else of Effect.
 * The signal interrupts it (the client went away): work in flight stops, and whatever the use case
 * made uninterruptible (quota reserve/commit/release) still completes. Its failures are the
 * effect's own, or the runtime's layer failing to build (a store it cannot reach or read).
 */
export type RunEffect<R> = <A, E>(
  effect: Effect.Effect<A, E, R>,
  options?: { readonly signal?: AbortSignal },
) => Promise<Exit.Exit<A, E | DependencyUnavailable | UndecodableEvent>>;

/** Aborts when the client closes the connection before the response is sent. */
export const clientGone = (ctx: Context): AbortSignal => {
  const controller = new AbortController();
  const onClose = () => {
    if (!ctx.res.writableFinished) controller.abort();
  };
  ctx.res.once("close", onClose);
  return controller.signal;
};

/** Nobody is left to answer: the access log records 499, as proxies do. */
const clientClosedRequest = (ctx: Context): void => {
  ctx.status = 499;
  ctx.state.failure = { code: "CLIENT_CLOSED_REQUEST" };
};

/**
 * Runs a route's use case and sends its value (`send`), or its failure through the error catalog.
 * `E` must be a cataloged error: one without a status does not compile here.
 */
export const respondWith = async <A, E extends ApiError, R>(
  ctx: Context,
  run: RunEffect<R>,
  effect: Effect.Effect<A, E, R>,
  send: (value: A) => void,
): Promise<void> => {
  const signal = clientGone(ctx);
  const exit = await run(Effect.provideService(effect, CallerRequestId, { requestId: ctx.state.requestId }), { signal });
  if (exit._tag === "Success") send(exit.value);
  else if (signal.aborted && Cause.hasInterruptsOnly(exit.cause)) clientClosedRequest(ctx);
  else sendFailure(ctx, exit.cause);
};
