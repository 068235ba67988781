import type http from "node:http";
import { Effect, Result, Schema, SchemaAST, SchemaIssue } from "effect";
import type { Context } from "koa";
import getRawBody from "raw-body";
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

/**
 * What reading the body threw, as the client's error. A request whose connection went before its
 * body was whole (a framing error Node could not parse, the client leaving) is the client's 400
 * whatever the reader threw: one that starts reading after the connection is gone is told the
 * stream "is not readable", and that is no fault of ours. Anything else is thrown on (a 500).
 */
const readFailure = (error: unknown, req: http.IncomingMessage, limit: number): ErrorResponse => {
  if (req.destroyed && !req.complete) return aborted();
  const { type } = (typeof error === "object" && error !== null ? error : {}) as { type?: unknown };
  if (type === "entity.too.large") return errorResponseOf(new BodyTooLarge({ limitBytes: limit }));
  if (type === "request.size.invalid") return invalid("The body is shorter than its Content-Length.");
  if (type === "request.aborted") return aborted();
  throw error;
};

/**
 * The whole body within `limit` bytes, or the error response to send: 413 over the limit, known
 * from Content-Length before a byte is read (a client waiting for `100 Continue` is never asked
 * for it), 400 when the connection goes before the body is whole.
 */
export const readBody = async (ctx: Context, limit: number): Promise<Buffer | ErrorResponse> => {
  const length = declaredLength(ctx.req);
  if (length !== undefined && length > limit) return errorResponseOf(new BodyTooLarge({ limitBytes: limit }));
  readyForBody(ctx.req, ctx.res);
  try {
    return await getRawBody(ctx.req, { length: length ?? null, limit });
  } catch (error) {
    return readFailure(error, ctx.req, limit);
  }
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
