import { Effect } from "effect";
import { createTemplate, deleteTemplate, getTemplate, reviseTemplate } from "../../../../application/account-templates/account-templates.ts";
import type { TemplateVersion } from "../../../../domain/account-templates/account-template.ts";
import { TemplateFonts } from "../../../../ports/engines/template-fonts.ts";
import type { AppServices } from "../../api/app-services.ts";
import type { GroupHandlers } from "../../api/mount.ts";
import type { accountTemplates } from "./account-templates-api.ts";

/** A kept template as the routes answer with it. */
const templateData = ({ templateId, name, version, createdAt, updatedAt, design }: TemplateVersion) => ({
  id: templateId,
  name,
  version,
  createdAt,
  updatedAt,
  canvas: design.canvas,
  layers: design.layers,
  ...(design.variants ? { variants: design.variants } : {}),
});

/** The routes of an account's own templates, by their names in account-templates-api.ts. */
export const accountTemplateHandlers: GroupHandlers<typeof accountTemplates, AppServices> = {
  listTemplateFonts: () => Effect.map(TemplateFonts, ({ available }) => ({ fonts: available })),
  createTemplate: ({ principal, payload }) => Effect.map(createTemplate(principal, payload), templateData),
  getTemplate: ({ principal, params }) => Effect.map(getTemplate(principal, params.id), templateData),
  reviseTemplate: ({ principal, params, payload }) => Effect.map(reviseTemplate(principal, params.id, payload), templateData),
  deleteTemplate: ({ principal, params }) =>
    Effect.map(deleteTemplate(principal, params.id), ({ templateId, name, version }) => ({ id: templateId, name, version, deleted: true as const })),
};
