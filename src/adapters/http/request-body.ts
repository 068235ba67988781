import { Effect, Result, Schema, SchemaIssue } from "effect";
import { InvalidRequest } from "../../application/errors.ts";
import { echo } from "../../domain/echo.ts";

/** Decodes a request body with its Schema; every offending field is named in `error.details`. */
const formatIssues = SchemaIssue.makeFormatterStandardSchemaV1();

export const decodeBody = <S extends Schema.Decoder<unknown>>(schema: S, body: unknown): Effect.Effect<S["Type"], InvalidRequest> => {
  const decoded = Schema.decodeUnknownResult(schema)(body ?? {}, { errors: "all" });
  if (Result.isSuccess(decoded)) return Effect.succeed(decoded.success);
  const all = formatIssues(decoded.failure.issue).issues.map((issue) => ({
    path: echo((issue.path ?? []).map(String).join(".") || "body"),
    message: echo(issue.message, 256),
  }));
  // A union's members may refuse a field with the same words: said once.
  const details = all.filter((detail, index) => all.findIndex((other) => other.path === detail.path && other.message === detail.message) === index);
  const message = `Invalid request body: ${details.map((d) => `${d.path}: ${d.message}`).join("; ")}`;
  return Effect.fail(new InvalidRequest({ message, details }));
};
