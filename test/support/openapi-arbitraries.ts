import fc from "fast-check";

/**
 * fast-check arbitraries drawn from an OpenAPI 3.1 document's JSON Schemas: values valid by the
 * schema, and near-valid ones (a field dropped, mistyped, huge or odd, unknown fields, another
 * JSON type altogether). The schema gives the shape; `hint` supplies what a schema cannot say
 * (which strings are images, template names, languages) for the fields it knows.
 */
export interface JsonSchema {
  readonly $ref?: string;
  readonly type?: string | ReadonlyArray<string>;
  readonly properties?: Readonly<Record<string, JsonSchema>>;
  readonly required?: ReadonlyArray<string>;
  readonly items?: JsonSchema;
  readonly enum?: ReadonlyArray<unknown>;
  readonly anyOf?: ReadonlyArray<JsonSchema>;
  readonly oneOf?: ReadonlyArray<JsonSchema>;
  readonly not?: JsonSchema;
  readonly minLength?: number;
  readonly maxLength?: number;
  readonly minimum?: number;
  readonly maximum?: number;
}

/** An arbitrary for a field by its name, or undefined to draw from its schema. */
export type Hint = (name: string) => fc.Arbitrary<unknown> | undefined;

export const resolve = (document: unknown, schema: JsonSchema): JsonSchema => {
  if (schema.$ref === undefined) return schema;
  const found = schema.$ref
    .replace(/^#\//, "")
    .split("/")
    .reduce<unknown>((node, segment) => (node as Record<string, unknown>)[segment.replaceAll("~1", "/").replaceAll("~0", "~")], document);
  return resolve(document, found as JsonSchema);
};

/** Strings a parser meets least often: control characters, lone surrogates, bidi overrides, combining marks, a BOM. */
export const oddStrings = fc.oneof(
  fc.string({ unit: "binary", maxLength: 40 }),
  fc.constantFrom("", " ", "\u0000", "\ud800", "\udfff\ud800", "\u202e\u2066abc", "e\u0301\u0301\u0301", "\ufeff{}", "🧑‍🚀🏳️‍🌈", "%00", "..%2F..%2F", "null", "[]"),
);

/** Past the JSON fast path's 64 KiB, and past any limit on a field. */
export const hugeStrings = fc.constantFrom("A".repeat(70_000), "é".repeat(40_000), "\u0000".repeat(70_000), "{".repeat(100_000), "7".repeat(1_500_000));

/** A value of another JSON type than the schema's. */
export const junk: fc.Arbitrary<unknown> = fc.oneof(
  fc.integer(),
  fc.double(),
  fc.boolean(),
  fc.constant(null),
  fc.array(fc.string(), { maxLength: 3 }),
  fc.dictionary(fc.string({ maxLength: 5 }), fc.string({ maxLength: 5 }), { maxKeys: 3 }),
  oddStrings,
);

/** Values valid by `schema`. */
export const validArbitrary = (document: unknown, schema: JsonSchema, hint: Hint, name = ""): fc.Arbitrary<unknown> => {
  const resolved = resolve(document, schema);
  const hinted = hint(name);
  if (hinted) return hinted;
  if (resolved.enum) return fc.constantFrom(...resolved.enum);
  const variants = resolved.anyOf ?? resolved.oneOf;
  if (variants) return fc.oneof(...variants.map((variant) => validArbitrary(document, variant, hint, name)));
  const type = Array.isArray(resolved.type) ? resolved.type[0] : resolved.type;
  switch (type) {
    case "object": {
      // A property whose schema is `not: {}` takes no value at all: a valid object leaves it out.
      const properties = Object.entries(resolved.properties ?? {}).filter(([, inner]) => resolve(document, inner).not === undefined);
      const model = Object.fromEntries(properties.map(([key, inner]) => [key, validArbitrary(document, inner, hint, key)]));
      return fc.record(model, { requiredKeys: (resolved.required ?? []).filter((key) => key in model) });
    }
    case "array":
      return fc.array(validArbitrary(document, resolved.items ?? {}, hint, name), { maxLength: 4 });
    case "integer":
      return fc.integer({ min: resolved.minimum ?? -1000, max: resolved.maximum ?? 1000 });
    case "number":
      return fc.double({ min: resolved.minimum ?? -1000, max: resolved.maximum ?? 1000, noNaN: true });
    case "boolean":
      return fc.boolean();
    case "null":
      return fc.constant(null);
    default:
      return fc.string({ minLength: resolved.minLength ?? 0, maxLength: resolved.maxLength ?? 40 });
  }
};

type Json = Record<string, unknown>;
const isObject = (value: unknown): value is Json => typeof value === "object" && value !== null && !Array.isArray(value);

/** The paths to every property of a JSON value, nested objects included. */
const propertyPaths = (value: unknown, prefix: ReadonlyArray<string> = []): Array<ReadonlyArray<string>> =>
  isObject(value) ? Object.entries(value).flatMap(([key, inner]) => [[...prefix, key], ...propertyPaths(inner, [...prefix, key])]) : [];

const withPath = (value: unknown, path: ReadonlyArray<string>, change: (parent: Json, key: string) => void): unknown => {
  const copy = structuredClone(value) as Json;
  const parent = path.slice(0, -1).reduce<Json>((node, key) => node[key] as Json, copy);
  change(parent, path.at(-1)!);
  return copy;
};

/** One change to a valid value that a strict reader would refuse, or that a lax one must survive. */
export const nearValid = (valid: fc.Arbitrary<unknown>): fc.Arbitrary<unknown> =>
  valid.chain((value) => {
    const paths = propertyPaths(value);
    const mutations: Array<fc.Arbitrary<unknown>> = [
      junk,
      fc.string({ maxLength: 20 }).map((key) => (isObject(value) ? { ...value, [key]: "unknown" } : value)),
    ];
    if (paths.length > 0) {
      const path = fc.constantFrom(...paths);
      mutations.push(
        path.map((p) => withPath(value, p, (parent, key) => delete parent[key])),
        fc.tuple(path, junk).map(([p, replacement]) => withPath(value, p, (parent, key) => (parent[key] = replacement))),
        fc.tuple(path, fc.oneof(oddStrings, hugeStrings)).map(([p, replacement]) => withPath(value, p, (parent, key) => (parent[key] = replacement))),
      );
    }
    return fc.oneof(...mutations);
  });
