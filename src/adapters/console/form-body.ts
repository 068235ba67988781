import type { Context } from "koa";
import { readBody } from "../http/bodies/request-body.ts";

/** Console forms are small: a name, an email, two passwords and a token (a template's form says its own limit). */
export const FORM_BODY_LIMIT = 8 * 1024;

export class FormRefused extends Error {
  readonly status: number;
  constructor(status: number) {
    super(`form refused with ${status}`);
    this.status = status;
  }
}

/** An `application/x-www-form-urlencoded` body, its fields as given (the first of repeated ones). */
export const readForm = async (ctx: Context, limit = FORM_BODY_LIMIT): Promise<ReadonlyMap<string, string>> => {
  if (!ctx.is("application/x-www-form-urlencoded")) throw new FormRefused(415);
  const raw = await readBody(ctx, limit);
  // Over the limit 413; a body cut short 400: the status of the API's own refusal.
  if (!Buffer.isBuffer(raw)) throw new FormRefused(raw.status);
  const fields = new Map<string, string>();
  for (const [name, value] of new URLSearchParams(raw.toString("utf8"))) if (!fields.has(name)) fields.set(name, value);
  return fields;
};
