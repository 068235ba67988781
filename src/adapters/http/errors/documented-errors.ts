import { STATUS_CODES } from "node:http";
import { HttpApiSchema } from "effect/http-api";
import type { ErrorStatusHeaders } from "../api/response-headers.ts";
import { ErrorBody } from "../api/response-schemas.ts";
import { type ApiErrorTag, ERROR_CATALOG, INTERNAL_ERROR } from "./error-catalog.ts";

/**
 * The error responses of an operation in the API's definition (api-definition.ts), from the catalog
 * entries it can answer with: one per status, with the codes it carries and the headers its errors send.
 */
const pascal = (code: string) =>
  code
    .toLowerCase()
    .replace(/(?:^|_)([a-z])/g, (_, letter: string) => letter.toUpperCase())
    .replace(/Error$/, "");

/** What each error component's errors send, for the document's response headers (openapi-document.ts). */
export const ERROR_HEADERS = new Map<string, ErrorStatusHeaders>();

/** Operations that answer a status with the same codes share one component, named by the first; a name is never given to two code sets. */
const errorSchemas = new Map<string, ReturnType<typeof errorSchema>>();
const errorSchema = (identifier: string, status: number, codes: ReadonlyArray<string>, anyCode: boolean) =>
  ErrorBody(anyCode ? undefined : codes)
    .pipe(HttpApiSchema.status(status))
    .annotate({ identifier, description: anyCode ? `${codes.join(", ")} or the refusing rule's own code` : codes.join(" or ") });

/** One code: named for it; several: for the status, within the operations' family (e.g. TransformationTooManyRequestsError). */
const errorName = (family: string, status: number, codes: ReadonlyArray<string>, anyCode: boolean) =>
  codes.length === 1 && !anyCode ? `${pascal(codes[0]!)}Error` : `${family}${(STATUS_CODES[status] ?? String(status)).replace(/\W/g, "")}Error`;

/**
 * One error response per status, listing the codes this operation can get with it. Every
 * operation can also answer 405 (another method on its path) and 500.
 */
export const errorResponses = (family: string, listed: ReadonlyArray<ApiErrorTag>) => {
  const tags: ReadonlyArray<ApiErrorTag> = [...listed, "MethodNotAllowed"];
  const byStatus = new Map<number, { codes: Set<string>; tags: Array<ApiErrorTag> }>([
    [INTERNAL_ERROR.status, { codes: new Set([INTERNAL_ERROR.code]), tags: [] }],
  ]);
  let open = false;
  for (const tag of tags) {
    const entry = ERROR_CATALOG[tag];
    const group = byStatus.get(entry.status) ?? { codes: new Set<string>(), tags: [] };
    if (entry.codes === undefined) open = true;
    for (const code of entry.codes ?? []) group.codes.add(code);
    group.tags.push(tag);
    byStatus.set(entry.status, group);
  }
  return [...byStatus].map(([status, group]) => {
    const codes = [...group.codes].sort();
    const anyCode = open && ERROR_CATALOG.CommandRejected.status === status;
    const key = `${status} ${codes.join(" ")} ${anyCode}`;
    const schema = errorSchemas.get(key) ?? errorSchema(errorName(family, status, codes, anyCode), status, codes, anyCode);
    errorSchemas.set(key, schema);
    const identifier = schema.ast.annotations?.["identifier"] as string;
    if ([...errorSchemas.values()].some((other) => other !== schema && other.ast.annotations?.["identifier"] === identifier)) {
      throw new Error(`${identifier} would name two error bodies`);
    }
    const sent = group.tags.map((tag) => ERROR_CATALOG[tag].sends ?? []);
    const always = sent.length === 0 ? [] : sent.reduce((common, headers) => common.filter((name) => headers.includes(name)));
    const sometimes = [...new Set(sent.flat())].filter((name) => !always.includes(name));
    const seen = ERROR_HEADERS.get(identifier);
    ERROR_HEADERS.set(identifier, {
      always: seen ? seen.always.filter((name) => always.includes(name)) : always,
      sometimes: [...new Set([...(seen?.sometimes ?? []), ...sometimes])],
    });
    return schema;
  });
};
