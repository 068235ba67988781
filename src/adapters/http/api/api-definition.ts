import { HttpApi, OpenApi } from "effect/http-api";
import { PLAN_IDS, PLANS } from "../../../domain/plan.ts";
import { account } from "../groups/account/account-api.ts";
import { accountTemplates } from "../groups/account-templates/account-templates-api.ts";
import { audit } from "../groups/audit/audit-api.ts";
import { catalog } from "../groups/catalog/catalog-api.ts";
import { jobs } from "../groups/jobs/jobs-api.ts";
import { ledger, receipts } from "../groups/receipts/receipts-api.ts";
import { results } from "../groups/results/results-api.ts";
import { transformations } from "../groups/transformations/transformations-api.ts";
import { webhooks } from "../groups/webhooks/webhooks-api.ts";
import { API_VERSION } from "../middleware/security-headers.ts";
import { WEBHOOK_SCHEMAS } from "./openapi-webhooks.ts";
import { RESPONSE_HEADERS } from "./response-headers.ts";

/**
 * The API's contract, declared once, group by group (groups/<group>/, each group's -api.ts): each
 * operation's path, request, success body, the errors it can answer with, who may call it (ApiKey,
 * OperatorToken) and whether it waits on an engine (EngineWork: admitted by memory, its body read
 * within that size's limit). mount.ts builds the Koa router from it, with the handlers of
 * api-handlers.ts; openapi-document.ts generates the OpenAPI document from it. A new operation is
 * one endpoint in its group and one handler in the group's record.
 */

/** Every plan's rate (they share one) and monthly transformations, as the plan catalog sets them. */
const { burst, perMinute } = PLANS.free.rate;
const monthlyTransformations = PLAN_IDS.map((id) => `${id} ${PLANS[id].monthlyTransformations ?? "unlimited"}`).join(", ");

export const ImageTransformationApi = HttpApi.make("image-transformation-api")
  .add(transformations)
  .add(jobs)
  .add(catalog)
  .add(accountTemplates)
  .add(account)
  .add(results)
  .add(ledger)
  .add(receipts)
  .add(audit)
  .add(webhooks)
  .annotate(HttpApi.AdditionalSchemas, [...Object.values(RESPONSE_HEADERS).map((header) => header.schema), ...WEBHOOK_SCHEMAS])
  .annotateMerge(
    OpenApi.annotations({
      title: "Image Transformation API",
      version: API_VERSION,
      description:
        "Template transformations, OCR and virtual try-on over HTTPS. Keyed calls need `Authorization: Bearer <API key>`. " +
        `Rate: a token bucket per key, ${burst} burst, refilled at ${perMinute} per minute. Monthly transformations: ${monthlyTransformations}; ` +
        "a transformation is one successful /generate, /ocr or /virtual-tryon. Every POST takes an optional Idempotency-Key: a retry with the same key " +
        "and body gets the first response again and is charged once. Responses carry X-Request-Id, API-Version and the IETF RateLimit fields.",
      license: { name: "Proprietary", url: "https://example.com/terms" },
    }),
  );
