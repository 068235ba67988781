import { Effect } from "effect";
import { previewDesign } from "../../domain/account-templates/design-preview.ts";
import { checkedDesign, drawnWithOwnContent, getTemplate, type TemplateBody } from "./account-templates.ts";

/**
 * The console's live preview (issue 27): a design as POST /templates would check it (the same
 * details for every broken rule), or a kept template, drawn with its own sample text and images by
 * the same renderer as /generate. Not metered: nothing is kept, and the picture is marked PREVIEW
 * (domain/design-preview.ts); the engine's own queue bounds how many draw at once.
 */
export const previewOfBody = (accountId: string, body: TemplateBody) =>
  Effect.flatMap(checkedDesign(body), (design) => drawnWithOwnContent(accountId, previewDesign(design)));

export const previewOfTemplate = (accountId: string, idOrName: string) =>
  Effect.flatMap(getTemplate({ account: { accountId } }, idOrName), ({ design }) => drawnWithOwnContent(accountId, previewDesign(design)));
