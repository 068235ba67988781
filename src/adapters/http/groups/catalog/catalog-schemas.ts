import { Schema } from "effect";
import { PLAN_IDS } from "../../../../domain/plan.ts";
import { ocrAutoLanguage, ocrLanguages } from "../../../../ports/engines/ocr-engine.ts";
import { TemplateName, TemplateType } from "../../api/field-schemas.ts";

/** The `data` of the catalog's successes: what the operations accept. */
const Text = Schema.String;
const Count = Schema.Int.check(Schema.isGreaterThanOrEqualTo(0));
const DateTime = Schema.String.annotate({ format: "date-time" });

export const OcrLanguagesData = Schema.Struct({
  languages: Schema.Array(Schema.Struct({ code: Schema.Literals([ocrAutoLanguage, ...ocrLanguages]), name: Text, script: Text })),
});

const CatalogTemplateEntry = Schema.Struct({
  template: TemplateName,
  templateType: TemplateType,
  description: Text,
  output: Schema.Struct({
    width: Schema.optionalKey(Count),
    height: Schema.optionalKey(Count),
    fit: Schema.optionalKey(Schema.Literals(["cover", "contain", "inside"])),
    format: Schema.Literals(["jpeg", "png", "webp", "avif"]),
    quality: Count,
  }),
  plans: Schema.Array(Schema.Literals(PLAN_IDS)),
  crop: Schema.NullOr(
    Schema.Struct({
      focus: Schema.Literals(["auto", "attention", "centre"]).annotate({ description: "the focus its crop takes when the request names none" }),
    }),
  ).annotate({ description: "null: the template keeps the whole image; else it crops to fill its box, and takes a `focus` on /generate" }),
  negotiatesFormat: Schema.Boolean.annotate({
    description:
      "true (JPEG outputs): the resultUrl serves AVIF, WebP or JPEG as the browser's Accept header prefers, with Vary: Accept; " +
      "false: it serves output.format. Any resultUrl takes format=avif|webp|jpeg|png",
  }),
  autoFormat: Schema.Boolean.annotate({
    description: 'whether /generate takes format "auto" with it: false where the result is transparent or a lossless PNG',
  }),
}).annotate({ identifier: "CatalogTemplate" });

/** One of the calling account's own templates, marked `own`: /generate draws it with templateType custom. */
const AccountTemplateEntry = Schema.Struct({
  own: Schema.Literal(true),
  id: Schema.String,
  template: Schema.String.annotate({ description: "its name" }),
  templateType: Schema.Literal("custom"),
  version: Count,
  updatedAt: DateTime,
  output: Schema.Struct({ width: Count, height: Count, format: Schema.Literals(["jpeg", "png", "webp"]) }),
}).annotate({ identifier: "OwnTemplate" });

export const TemplatesData = Schema.Struct({
  templates: Schema.Array(Schema.Union([CatalogTemplateEntry, AccountTemplateEntry])).annotate({
    description: "the catalog's templates, then the account's own (own: true)",
  }),
});
