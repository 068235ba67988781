import { Schema } from "effect";
import { DesignFields } from "../../../../application/account-templates/account-template-schema.ts";
import { DESIGN_LIMITS, TEMPLATE_FONTS } from "../../../../domain/account-templates/account-template-design.ts";

/** The body and the reply of the routes of an account's own templates (account-templates-api.ts). */
export const TemplateBody = Schema.Struct({
  name: Schema.String.annotate({
    identifier: "AccountTemplateName",
    description: "1 to 64 of a-z, 0-9, - and _, unique in the account; /generate takes it as template with templateType custom",
    examples: ["launch-card"],
  }),
  ...DesignFields,
}).annotate({
  identifier: "AccountTemplateRequest",
  description: `a canvas and its layers, drawn bottom first; at most ${DESIGN_LIMITS.maxLayers} layers, one photo layer, ${DESIGN_LIMITS.maxTextLength} characters of text a layer`,
});

export const TemplateId = Schema.String.annotate({ identifier: "AccountTemplateId", description: "tpl_… as created, or the template's name" });

const DateTime = Schema.String.annotate({ format: "date-time" });

export const AccountTemplateData = Schema.Struct({
  id: Schema.String.annotate({ description: "tpl_…" }),
  name: Schema.String,
  version: Schema.Int.annotate({ description: "1 when created, one more on each PUT; a result keeps the version it was made with" }),
  createdAt: DateTime,
  updatedAt: DateTime,
  ...DesignFields,
});

export const DeletedTemplateData = Schema.Struct({
  id: Schema.String,
  name: Schema.String,
  version: Schema.Int.annotate({ description: "the version deleted" }),
  deleted: Schema.Literal(true),
});

export const TemplateFontsData = Schema.Struct({
  fonts: Schema.Array(
    Schema.Struct({
      family: Schema.Literals(TEMPLATE_FONTS).annotate({ description: "what a text layer's font names" }),
      scripts: Schema.Array(Schema.String).annotate({ description: "the scripts it draws with glyphs of its own" }),
    }).annotate({ identifier: "TemplateFont" }),
  ).annotate({ description: "every family a text layer may name, and no other" }),
});
