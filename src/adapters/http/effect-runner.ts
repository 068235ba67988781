import type { Effect, Exit } from "effect";
import type { Context } from "koa";
import type { Logger } from "pino";
import { errorResponseOfCause } from "./error-response.ts";
import { sendData, sendError } from "./respond.ts";

/** Runs a use case with the application's services; the HTTP adapter knows nothing else of Effect. */
export type RunEffect<R> = <A, E>(effect: Effect.Effect<A, E, R>) => Promise<Exit.Exit<A, unknown>>;

/** Sends the use case's value (mapped to the response `data`) or its failure as the error body. */
export const respondWith = async <A, E, R>(
  ctx: Context,
  run: RunEffect<R>,
  logger: Logger,
  effect: Effect.Effect<A, E, R>,
  toData: (value: A) => unknown,
): Promise<A | undefined> => {
  const exit = await run(effect);
  if (exit._tag === "Success") {
    sendData(ctx, toData(exit.value));
    return exit.value;
  }
  const response = errorResponseOfCause(exit.cause);
  if (response.status >= 500) logger.error({ requestId: ctx.state.requestId, cause: String(exit.cause) }, "request failed");
  sendError(ctx, response);
  return undefined;
};
