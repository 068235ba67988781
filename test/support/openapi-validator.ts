import { Ajv2020, type ValidateFunction } from "ajv/dist/2020.js";
import addFormats from "ajv-formats";

/**
 * Checks a response against the served OpenAPI 3.1 document, with Ajv (JSON Schema 2020-12, the
 * dialect of OpenAPI 3.1): the operation is found by method and path template, then the response by
 * status and content type, and a JSON body must match its schema. Every e2e request goes through
 * it (https-client.ts), so a response the document does not describe fails the test that got it.
 * Headers too: each one the response declares must be there when required and match its schema,
 * and any other header but the transport's own is a header the document does not declare.
 */
export interface CheckedReply {
  readonly method: string;
  /** The path as requested, e.g. /api/results/abc?expires=…; the document's paths are under its server URL. */
  readonly path: string;
  readonly status: number;
  readonly contentType: string;
  readonly json: unknown;
  /** The reply's headers, names in lower case (as Node gives them); absent: not checked. */
  readonly headers?: Readonly<Record<string, string | ReadonlyArray<string> | undefined>>;
}

/** Headers of the connection and the message itself, which no API document declares. */
const TRANSPORT_HEADERS = new Set(["content-type", "content-length", "date", "connection", "keep-alive", "transfer-encoding"]);

interface DeclaredHeader {
  readonly required?: boolean;
  readonly schema: unknown;
}

interface OpenApiDocument {
  readonly servers: ReadonlyArray<{ readonly url: string }>;
  readonly paths: Record<
    string,
    Record<
      string,
      {
        readonly responses: Record<
          string,
          { readonly content?: Record<string, { readonly schema: unknown }>; readonly headers?: Record<string, DeclaredHeader> }
        >;
      }
    >
  >;
}

const DOCUMENT_ID = "https://contract.test/openapi.json";

const pointer = (...segments: ReadonlyArray<string>) => segments.map((s) => s.replaceAll("~", "~0").replaceAll("/", "~1")).join("/");

const schemaRef = (template: string, method: string, status: string, mediaType: string) =>
  `${DOCUMENT_ID}#/${pointer("paths", template, method, "responses", status, "content", mediaType, "schema")}`;
const headerRef = (template: string, method: string, status: string, name: string) =>
  `${DOCUMENT_ID}#/${pointer("paths", template, method, "responses", status, "headers", name, "schema")}`;

export class ContractViolation extends Error {}

export const makeOpenApiValidator = (document: unknown) => {
  const doc = document as OpenApiDocument;
  const ajv = new Ajv2020({ strict: false, allErrors: true });
  addFormats.default(ajv);
  ajv.addSchema({ ...(document as object), $id: DOCUMENT_ID });
  const base = new URL(doc.servers[0]!.url).pathname.replace(/\/$/, "");
  const templates = Object.keys(doc.paths).map((template) => ({
    template,
    pattern: new RegExp(`^${template.replace(/[.*+?^$()|[\]\\]/g, "\\$&").replace(/\{[^{}]+\}/g, "[^/]+")}$`),
  }));
  // Compiled up front, so that a request's measured time holds no schema compilation. A schema is
  // compiled once however many responses use it: its $refs point from the document's root, so the
  // same text validates alike wherever it stands (1,092 header schemas are 11 texts, 157 bodies 38;
  // compiling each place took ≈ 1 s of every service start in the tests).
  const compiled = new Map<string, ValidateFunction>();
  const bySchema = new Map<string, ValidateFunction>();
  const compile = (ref: string, schema: unknown) => {
    const text = JSON.stringify(schema);
    let validate = bySchema.get(text);
    if (validate === undefined) bySchema.set(text, (validate = ajv.compile({ $ref: ref })));
    compiled.set(ref, validate);
  };
  for (const [template, item] of Object.entries(doc.paths)) {
    for (const [method, operation] of Object.entries(item)) {
      for (const [status, response] of Object.entries(operation.responses)) {
        for (const [name, header] of Object.entries(response.headers ?? {})) compile(headerRef(template, method, status, name), header.schema);
        for (const [mediaType, content] of Object.entries(response.content ?? {}).filter(([type]) => type.endsWith("json"))) {
          compile(schemaRef(template, method, status, mediaType), content.schema);
        }
      }
    }
  }

  const checkHeaders = (
    where: string,
    template: string,
    method: string,
    status: string,
    declared: Record<string, DeclaredHeader>,
    sent: NonNullable<CheckedReply["headers"]>,
  ) => {
    const byName = new Map(Object.entries(declared).map(([name, header]) => [name.toLowerCase(), { name, header }]));
    for (const [name, { header }] of byName)
      if (header.required === true && sent[name] === undefined) throw new ContractViolation(`${where}: the header ${name} is missing`);
    for (const [name, value] of Object.entries(sent)) {
      if (value === undefined || TRANSPORT_HEADERS.has(name)) continue;
      const found = byName.get(name);
      if (found === undefined) throw new ContractViolation(`${where}: the header ${name} is not declared`);
      const validate = compiled.get(headerRef(template, method, status, found.name))!;
      for (const one of typeof value === "string" ? [value] : value) {
        if (!validate(one)) throw new ContractViolation(`${where}: the header ${name}: ${JSON.stringify(one)} ${ajv.errorsText(validate.errors)}`);
      }
    }
  };

  /** Throws a ContractViolation naming what differs; replies to paths the document does not list pass. */
  return (reply: CheckedReply): void => {
    const pathname = new URL(reply.path, "https://x").pathname;
    if (!pathname.startsWith(`${base}/`)) return;
    const template = templates.find((t) => t.pattern.test(pathname.slice(base.length)))?.template;
    const method = reply.method.toLowerCase();
    const operation = template === undefined ? undefined : doc.paths[template]![method];
    // A redirect (plain HTTP behind a proxy) never reached the operation.
    if (template === undefined || operation === undefined || (reply.status >= 300 && reply.status < 400)) return;
    const where = `${reply.method} ${template} → ${reply.status}`;
    const response = operation.responses[String(reply.status)];
    if (response === undefined) throw new ContractViolation(`${where}: the document lists no such status (${Object.keys(operation.responses).join(", ")})`);
    if (reply.headers !== undefined) checkHeaders(where, template, method, String(reply.status), response.headers ?? {}, reply.headers);
    const mediaType = reply.contentType.split(";")[0]!.trim();
    if (response.content === undefined) return;
    if (!(mediaType in response.content))
      throw new ContractViolation(`${where}: content type ${mediaType} is not one of ${Object.keys(response.content).join(", ")}`);
    if (!mediaType.endsWith("json")) return;
    const validate = compiled.get(schemaRef(template, method, String(reply.status), mediaType))!;
    if (!validate(reply.json)) throw new ContractViolation(`${where}: the body does not match the document: ${ajv.errorsText(validate.errors)}`);
  };
};
