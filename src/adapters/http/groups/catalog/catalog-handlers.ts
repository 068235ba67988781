import { Effect } from "effect";
import { listAccountTemplates } from "../../../../application/account-templates/account-templates.ts";
import { supportedOcrLanguages } from "../../../../application/transformations/recognize-text.ts";
import { autoFormatRefusal } from "../../../../domain/auto-format.ts";
import { templateCrop } from "../../../../domain/crop-window.ts";
import { negotiatesFormat } from "../../../../domain/negotiate-format.ts";
import { TEMPLATES } from "../../../../domain/template-catalog/template-catalog.ts";
import type { AppServices } from "../../api/app-services.ts";
import type { GroupHandlers } from "../../api/mount.ts";
import type { catalog } from "./catalog-api.ts";

/** The catalog (catalog-api.ts): the catalog's templates, then the account's own; the configured OCR engine's languages. */
export const catalogHandlers: GroupHandlers<typeof catalog, AppServices> = {
  listTemplates: ({ principal }) =>
    Effect.map(listAccountTemplates(principal), (own) => ({
      templates: [
        ...TEMPLATES.map((t) => ({
          template: t.template,
          templateType: t.templateType,
          description: t.description,
          output: t.output,
          plans: t.plans,
          crop: templateCrop(t),
          negotiatesFormat: negotiatesFormat(t.output.format),
          autoFormat: autoFormatRefusal(t) === undefined,
        })),
        ...own.map(({ templateId, name, version, updatedAt, design: { canvas } }) => ({
          own: true as const,
          id: templateId,
          template: name,
          templateType: "custom" as const,
          version,
          updatedAt,
          output: { width: canvas.width, height: canvas.height, format: canvas.format },
        })),
      ],
    })),
  listOcrLanguages: () => Effect.map(supportedOcrLanguages, (languages) => ({ languages })),
};
