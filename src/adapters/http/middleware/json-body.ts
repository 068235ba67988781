import { bodyParser } from "@koa/bodyparser";
import type { Middleware } from "koa";
import { sendError } from "../respond.ts";

/** POST bodies are JSON objects within a byte limit: 415 for another type, 413 over the limit, 400 if malformed. */
export const jsonBody = (maxBodyBytes: number): Middleware => {
  const parse = bodyParser({
    enableTypes: ["json"],
    jsonLimit: maxBodyBytes,
    jsonStrict: true,
    onError: (error) => {
      throw error;
    },
  });
  return async (ctx, next) => {
    if (!ctx.is("application/json")) {
      return sendError(ctx, {
        status: 415,
        code: "UNSUPPORTED_MEDIA_TYPE",
        message: "Send the body as Content-Type: application/json.",
      });
    }
    await parse(ctx, next);
  };
};
