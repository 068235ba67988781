import fc from "fast-check";
import type { RequestOptions } from "./https-client.ts";
import { type Hint, type JsonSchema, nearValid, oddStrings, resolve, validArbitrary } from "./openapi-arbitraries.ts";

/**
 * Whole HTTP requests for one operation of an OpenAPI document, drawn from its parameters, request
 * body schema and security: valid by the schemas, near-valid (openapi-arbitraries.ts), or broken
 * on the wire (truncated or non-UTF-8 JSON, another content type or encoding, chunked, a path
 * segment of arbitrary bytes, repeated or unknown query parameters).
 */
export interface Parameter {
  readonly name: string;
  readonly in: "path" | "query" | "header";
  readonly required?: boolean;
  readonly schema: JsonSchema;
}

export interface Operation {
  readonly parameters?: ReadonlyArray<Parameter>;
  readonly security?: ReadonlyArray<Record<string, unknown>>;
  readonly requestBody?: { readonly content: Record<string, { readonly schema: JsonSchema }> };
}

export interface GeneratedRequest {
  readonly path: string;
  readonly options: RequestOptions;
}

/** What the document cannot say, from the service under test. */
export interface RequestSources {
  readonly hint: Hint;
  /** Values that belong together (a template and its type; a result id and its signature), by "method /path". */
  readonly together: (operation: string) => fc.Arbitrary<Record<string, unknown>>;
  /** The bearer value to send for an operation's security requirement; undefined sends none. */
  readonly credential: (security: Operation["security"]) => fc.Arbitrary<string | undefined>;
}

/** Percent-encodes every byte, so that a path segment may carry any bytes at all (invalid UTF-8 too). */
const percentEncoded = (value: string | Uint8Array) => [...Buffer.from(value)].map((b) => `%${b.toString(16).padStart(2, "0")}`).join("");

const uriEncoded = (value: string) => {
  try {
    return encodeURIComponent(value);
  } catch {
    return percentEncoded(value); // a lone surrogate
  }
};

const rawBodies = (valid: fc.Arbitrary<unknown>): fc.Arbitrary<string | Buffer> =>
  fc.oneof(
    fc.tuple(valid, fc.nat()).map(([value, cut]) => {
      const text = JSON.stringify(value);
      return text.slice(0, cut % (text.length + 1));
    }),
    fc.constantFrom(
      "",
      "null",
      "[]",
      "1e999",
      '{"image":"\u0001"}',
      "\ufeff{}",
      `${"[".repeat(5000)}${"]".repeat(5000)}`,
      Buffer.concat([Buffer.from('{"image":"'), Buffer.from([0xff, 0xfe, 0xc0, 0x80]), Buffer.from('","template":"small","templateType":"thumbnail"}')]),
    ),
  );

/** Requests for one operation of the document: valid by its schemas, near-valid, or broken. */
export const requestsFor = (
  document: unknown,
  template: string,
  method: string,
  operation: Operation,
  sources: RequestSources,
): fc.Arbitrary<GeneratedRequest> => {
  const { hint, together, credential } = sources;
  const key = `${method} ${template}`;
  const parameters = (operation.parameters ?? []).map((p) => ({ ...p, schema: resolve(document, p.schema) }));
  const values = fc
    .tuple(
      fc.record(Object.fromEntries(parameters.map((p) => [p.name, validArbitrary(document, p.schema, hint, p.name)])), {
        requiredKeys: parameters.filter((p) => p.required || p.in === "path").map((p) => p.name),
      }),
      fc.oneof({ arbitrary: together(key), weight: 3 }, { arbitrary: fc.constant({}), weight: 1 }),
    )
    .map(([drawn, joint]) => ({ ...drawn, ...Object.fromEntries(Object.entries(joint).filter(([name]) => parameters.some((p) => p.name === name))) }));
  const schema = operation.requestBody?.content["application/json"]?.schema;
  const validBody = schema
    ? fc
        .tuple(validArbitrary(document, schema, hint), fc.oneof({ arbitrary: together(key), weight: 3 }, { arbitrary: fc.constant({}), weight: 1 }))
        .map(([body, joint]) => ({ ...(body as object), ...joint }))
    : fc.constant(undefined);
  const body: fc.Arbitrary<unknown> = schema
    ? fc.oneof({ arbitrary: validBody, weight: 4 }, { arbitrary: nearValid(validBody), weight: 4 }, { arbitrary: rawBodies(validBody), weight: 1 })
    : fc.constant(undefined);
  return fc
    .record({
      values,
      pathBytes: fc.oneof({ arbitrary: fc.constant(undefined), weight: 7 }, { arbitrary: fc.uint8Array({ maxLength: 12 }), weight: 1 }),
      // Chunked (no Content-Length) in pieces of these sizes, and headers a client may add.
      chunkBytes: fc.oneof({ arbitrary: fc.constant(undefined), weight: 4 }, { arbitrary: fc.constantFrom(7, 4096, 65_536), weight: 1 }),
      extraHeaders: fc.oneof(
        { arbitrary: fc.constant({}), weight: 6 },
        fc.constantFrom(
          { "Content-Encoding": "gzip" },
          { "Content-Encoding": "identity" },
          { Expect: "100-continue" },
          { Accept: "text/html" },
          { "Accept-Charset": "latin1" },
        ),
      ),
      // An unknown parameter, or a second value for a known one.
      extraQuery: fc.oneof(
        { arbitrary: fc.constant(undefined), weight: 3 },
        {
          arbitrary: fc.tuple(
            fc.oneof(fc.string({ maxLength: 10 }), ...parameters.filter((p) => p.in === "query").map((p) => fc.constant(p.name))),
            oddStrings,
          ),
          weight: 1,
        },
      ),
      auth: credential(operation.security),
      body,
      contentType: fc.oneof(
        { arbitrary: fc.constant("application/json"), weight: 12 },
        fc.constantFrom("application/json; charset=utf-8", "text/plain", "application/x-www-form-urlencoded", "application/JSON", "multipart/form-data"),
      ),
    })
    .map(({ values, pathBytes, chunkBytes, extraHeaders, extraQuery, auth, body, contentType }) => {
      let path = template;
      const query = new URLSearchParams();
      const headers: Record<string, string> = { ...extraHeaders };
      for (const p of parameters) {
        const value = (values as Record<string, unknown>)[p.name];
        if (value === undefined) continue;
        if (p.in === "path") path = path.replace(`{${p.name}}`, pathBytes ? percentEncoded(pathBytes) : uriEncoded(String(value)));
        else if (p.in === "query") query.append(p.name, String(value));
        else headers[p.name] = String(value);
      }
      if (extraQuery) query.append(...extraQuery);
      const search = query.size > 0 ? `?${query.toString()}` : "";
      if (body !== undefined) headers["Content-Type"] = contentType;
      return {
        path: `/api${path}${search}`,
        options: { ...(auth === undefined ? {} : { key: auth }), ...(chunkBytes === undefined ? {} : { chunkBytes }), headers, body },
      };
    });
};
