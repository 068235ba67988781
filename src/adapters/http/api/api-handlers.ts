import type { ResultUrlSigner } from "../../results/signed-result-url.ts";
import { accountHandlers } from "../groups/account/account-handlers.ts";
import { accountTemplateHandlers } from "../groups/account-templates/account-template-handlers.ts";
import { auditHandlers } from "../groups/audit/audit-handlers.ts";
import { catalogHandlers } from "../groups/catalog/catalog-handlers.ts";
import { jobHandlers } from "../groups/jobs/job-handlers.ts";
import { receiptHandlers } from "../groups/receipts/receipt-handlers.ts";
import { resultHandlers } from "../groups/results/result-handlers.ts";
import { transformationHandlers } from "../groups/transformations/transformation-handlers.ts";
import { webhookHandlers } from "../groups/webhooks/webhook-handlers.ts";
import type { ImageTransformationApi } from "./api-definition.ts";
import type { AppServices } from "./app-services.ts";
import type { Handlers } from "./mount.ts";

export interface ApiHandlerOptions {
  readonly resultUrls: ResultUrlSigner;
  /** Absolute origin of result URLs, e.g. https://api.example.com */
  readonly publicBaseUrl: string;
}

/**
 * What each operation of api-definition.ts does, by its name: each group's record of handlers
 * (groups/<group>/), which runs the use case with the request the definition decoded and makes the
 * operation's `data` of its value (encoded through the operation's Schema by mount.ts).
 */
export const apiHandlers = (options: ApiHandlerOptions): Handlers<typeof ImageTransformationApi, AppServices> => ({
  ...transformationHandlers(options),
  ...jobHandlers,
  ...catalogHandlers,
  ...accountTemplateHandlers,
  ...accountHandlers,
  ...resultHandlers(options),
  ...receiptHandlers,
  ...auditHandlers,
  ...webhookHandlers,
});
