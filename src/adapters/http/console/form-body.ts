import type { Context } from "koa";
import getRawBody from "raw-body";
import { readyForBody } from "../expect-continue.ts";

/** Console forms are small: a name, an email, two passwords and a token. */
export const FORM_BODY_LIMIT = 8 * 1024;

export class FormRefused extends Error {
  readonly status: 413 | 415 | 400;
  constructor(status: 413 | 415 | 400) {
    super(`form refused with ${status}`);
    this.status = status;
  }
}

/** An `application/x-www-form-urlencoded` body, its fields as given (the first of repeated ones). */
export const readForm = async (ctx: Context): Promise<ReadonlyMap<string, string>> => {
  if (!ctx.is("application/x-www-form-urlencoded")) throw new FormRefused(415);
  const declared = Number(ctx.get("Content-Length") || "0");
  if (declared > FORM_BODY_LIMIT) throw new FormRefused(413);
  let text: string;
  readyForBody(ctx.req, ctx.res);
  try {
    text = await getRawBody(ctx.req, { limit: FORM_BODY_LIMIT, encoding: "utf8" });
  } catch (error) {
    throw new FormRefused((error as { type?: string }).type === "entity.too.large" ? 413 : 400);
  }
  const fields = new Map<string, string>();
  for (const [name, value] of new URLSearchParams(text)) if (!fields.has(name)) fields.set(name, value);
  return fields;
};
