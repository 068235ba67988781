import type http from "node:http";
import { Effect, Result, Schema, SchemaAST, SchemaIssue } from "effect";
import type { Context } from "koa";
import { InvalidRequest } from "../../../application/errors.ts";
import { echo } from "../../../domain/echo.ts";
import { type ErrorResponse, errorResponseOf } from "../errors/error-catalog.ts";
import { BodyTooLarge } from "../errors/protocol-errors.ts";
import { readyForBody } from "../server/expect-continue.ts";

/**
 * Reading a request body, in one place: its declared length, the limit, `100 Continue`, and every
 * way the read can fail mapped to the catalog. The JSON routes and the console's forms both read
 * through here.
 */

/** The length the client declared up front (Node's parser has already refused a malformed one); undefined when chunked or absent. */
export const declaredLength = (req: http.IncomingMessage): number | undefined => {
  const header = req.headers["content-length"];
  return header === undefined ? undefined : Number(header);
};

const invalid = (message: string) => errorResponseOf(new InvalidRequest({ message, details: [] }));
const aborted = () => invalid("The request was aborted.");

/** A body the connection gave up on before it was whole: the client's 400, whatever the stream said. */
const abandoned = (req: http.IncomingMessage): boolean => req.destroyed && !req.complete;

/**
 * The body's bytes in one buffer. With a declared length the buffer is taken once, before the
 * first chunk, and each chunk is copied in as it arrives: joining a 13 MB body from its chunks at
 * the end took 40-100 ms of the event loop in one piece (the first touch of that many fresh pages),
 * spread this way over the chunks' own turns. A chunked body is joined at the end, as before.
 */
const collect = (req: http.IncomingMessage, length: number | undefined, limit: number): Promise<Buffer | ErrorResponse> =>
  new Promise((resolve, reject) => {
    // A connection that went before the read began never ends: it is the client's 400 now.
    if (abandoned(req)) return resolve(aborted());
    if (req.readableEnded) return reject(new Error("The request body was read already."));
    const whole = length === undefined ? undefined : Buffer.allocUnsafeSlow(length);
    const chunks: Array<Buffer> = [];
    let received = 0;
    const settle = (outcome: Buffer | ErrorResponse | Error) => {
      req.off("data", onData).off("end", onEnd).off("aborted", onAborted).off("close", onAborted).off("error", onError);
      if (Buffer.isBuffer(outcome)) return resolve(outcome);
      // The rest of the body is not read: the client hears the answer and the connection closes.
      req.pause();
      if (outcome instanceof Error) reject(outcome);
      else resolve(outcome);
    };
    const onData = (chunk: Buffer) => {
      if (received + chunk.length > (length ?? limit)) {
        return settle(length === undefined ? errorResponseOf(new BodyTooLarge({ limitBytes: limit })) : invalid("The body is longer than its Content-Length."));
      }
      if (whole === undefined) chunks.push(chunk);
      else chunk.copy(whole, received);
      received += chunk.length;
    };
    const onEnd = () =>
      settle(
        length !== undefined && received !== length ? invalid("The body is shorter than its Content-Length.") : (whole ?? Buffer.concat(chunks, received)),
      );
    const onAborted = () => settle(aborted());
    const onError = (error: Error) => settle(abandoned(req) ? aborted() : error);
    req.on("data", onData).on("end", onEnd).on("aborted", onAborted).on("close", onAborted).on("error", onError);
  });

/**
 * The whole body within `limit` bytes, or the error response to send: 413 over the limit, known
 * from Content-Length before a byte is read (a client waiting for `100 Continue` is never asked
 * for it), 400 when the connection goes before the body is whole.
 */
export const readBody = async (ctx: Context, limit: number): Promise<Buffer | ErrorResponse> => {
  const length = declaredLength(ctx.req);
  if (length !== undefined && length > limit) return errorResponseOf(new BodyTooLarge({ limitBytes: limit }));
  readyForBody(ctx.req, ctx.res);
  return collect(ctx.req, length, limit);
};

/** Decodes a request body with its Schema; every offending field is named in `error.details`. */
const formatIssues = SchemaIssue.makeFormatterStandardSchemaV1();

/**
 * A body that names a union's form by its literal field (`templateType: "custom"`) is judged by
 * that form alone: what the other forms would have wanted is no detail of its mistake.
 */
const ofNamedForm = (issue: SchemaIssue.Issue, body: unknown): SchemaIssue.Issue => {
  if (issue._tag !== "AnyOf" || typeof body !== "object" || body === null) return issue;
  const fields = body as Readonly<Record<PropertyKey, unknown>>;
  const named = issue.issues.filter(
    (form) =>
      form._tag === "Composite" &&
      SchemaAST.isObjects(form.ast) &&
      form.ast.propertySignatures.some(({ name, type }) => SchemaAST.isLiteral(type) && Object.hasOwn(fields, name) && fields[name] === type.literal),
  );
  return named.length > 0 ? new SchemaIssue.AnyOf(issue.ast, named) : issue;
};

export const decodeBody = <S extends Schema.Decoder<unknown>>(schema: S, body: unknown): Effect.Effect<S["Type"], InvalidRequest> => {
  const decoded = Schema.decodeUnknownResult(schema)(body ?? {}, { errors: "all" });
  if (Result.isSuccess(decoded)) return Effect.succeed(decoded.success);
  const all = formatIssues(ofNamedForm(decoded.failure.issue, body)).issues.map((issue) => ({
    path: echo((issue.path ?? []).map(String).join(".") || "body"),
    message: echo(issue.message, 256),
  }));
  // A union's members may refuse a field with the same words: said once.
  const details = all.filter((detail, index) => all.findIndex((other) => other.path === detail.path && other.message === detail.message) === index);
  const message = `Invalid request body: ${details.map((d) => `${d.path}: ${d.message}`).join("; ")}`;
  return Effect.fail(new InvalidRequest({ message, details }));
};
