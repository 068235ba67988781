import { WEBHOOK_HEADERS, WEBHOOK_MESSAGES } from "../../../application/webhooks/webhook-message.ts";

/** The Schemas the `webhooks` object refers to, listed as components with the API's own (api-definition.ts). */
export const WEBHOOK_SCHEMAS = [...Object.values(WEBHOOK_MESSAGES), ...Object.values(WEBHOOK_HEADERS)].map((named) => named.schema);

const component = (identifier: string) => ({ $ref: `#/components/schemas/${identifier}` });

/**
 * OpenAPI 3.1's top-level `webhooks`: one POST per event type the sender emits, its body the
 * message's Schema and its headers Standard Webhooks' three. What the receiver answers is its own;
 * any 2xx within 15 s is a delivery, anything else is retried (docs/webhooks.md).
 */
export const openApiWebhooks = () =>
  Object.fromEntries(
    Object.entries(WEBHOOK_MESSAGES).map(([eventType, message]) => [
      eventType,
      {
        post: {
          tags: ["Webhooks"],
          operationId: `${eventType.replace(/\.(\w)/u, (_, letter: string) => letter.toUpperCase())}Webhook`,
          summary: `The ${eventType} message`,
          description: `Sent to each active endpoint that asked for ${eventType}, signed as Standard Webhooks specifies (docs/webhooks.md).`,
          parameters: Object.entries(WEBHOOK_HEADERS).map(([name, header]) => ({
            name,
            in: "header",
            required: true,
            description: header.description,
            schema: component(header.identifier),
          })),
          requestBody: { required: true, content: { "application/json": { schema: component(message.identifier) } } },
          responses: {
            "200": { description: "Received (any 2xx within 15 s is a delivery; anything else is retried)" },
          },
        },
      },
    ]),
  );
