import { Ajv2020 } from "ajv/dist/2020.js";
import addFormats from "ajv-formats";

/**
 * Checks a message a webhook receiver got against the served OpenAPI document's top-level
 * `webhooks`: the event type's POST, its body against the request body's schema and each declared
 * header (required, matching its schema). Throws naming what differs.
 */
interface WebhookOperation {
  readonly parameters: ReadonlyArray<{ readonly name: string; readonly in: string; readonly required?: boolean }>;
  readonly requestBody: { readonly content: Record<string, unknown> };
}

const DOCUMENT_ID = "https://contract.test/webhooks.json";

export const makeWebhookValidator = (document: unknown) => {
  const webhooks = (document as { webhooks?: Record<string, { post?: WebhookOperation }> }).webhooks ?? {};
  const ajv = new Ajv2020({ strict: false, allErrors: true });
  addFormats.default(ajv);
  ajv.addSchema({ ...(document as object), $id: DOCUMENT_ID });
  const ref = (...segments: ReadonlyArray<string>) =>
    ajv.compile({ $ref: `${DOCUMENT_ID}#/${segments.map((s) => s.replaceAll("~", "~0").replaceAll("/", "~1")).join("/")}` });

  return (message: { readonly headers: Readonly<Record<string, unknown>>; readonly body: string }): void => {
    const payload = JSON.parse(message.body) as { type?: string };
    const type = String(payload.type);
    const operation = webhooks[type]?.post;
    if (operation === undefined) throw new Error(`the document's webhooks declare no ${type}`);
    const body = ref("webhooks", type, "post", "requestBody", "content", "application/json", "schema");
    if (!body(payload)) throw new Error(`${type}'s body: ${ajv.errorsText(body.errors)}`);
    operation.parameters.forEach((parameter, index) => {
      if (parameter.in !== "header") return;
      const value = message.headers[parameter.name.toLowerCase()];
      if (value === undefined) {
        if (parameter.required === true) throw new Error(`${type}: the header ${parameter.name} is missing`);
        return;
      }
      const validate = ref("webhooks", type, "post", "parameters", String(index), "schema");
      if (!validate(value)) throw new Error(`${type}: the header ${parameter.name}: ${JSON.stringify(value)} ${ajv.errorsText(validate.errors)}`);
    });
  };
};
