import { Schema } from "effect";
import { DEFAULT_VARIANT, DESIGN_LIMITS } from "../../../../domain/account-templates/account-template-design.ts";
import { GENERATE_FORMATS } from "../../../../domain/auto-format.ts";
import { FOCUS_NAMES } from "../../../../domain/crop-window.ts";
import {
  DEFAULT_TRYON_SETTINGS,
  TRYON_SETTING_DESCRIPTIONS,
  TRYON_SETTING_NAMES,
  TRYON_SETTING_VALUES,
  type TryOnSettingName,
} from "../../../../domain/tryon-settings.ts";
import { maxCombinedOcrLanguages, ocrAutoLanguage, ocrLanguages, ocrOutputFormats } from "../../../../ports/engines/ocr-engine.ts";
import { oneOf, TemplateName, TemplateType } from "../../api/field-schemas.ts";

/**
 * The transformations' request bodies as the API accepts them, and as they are decoded: what the document says is what
 * the service takes. Allowed values come from the catalogs the use cases check against. Unknown
 * properties are ignored (changes are additive), except in `settings`, where a misspelt setting
 * would silently fall back to its default. Image fields are any string here: an empty or
 * undecodable image is a 422 INVALID_IMAGE, found when the image is decoded (after the plan and
 * quota checks), not a malformed body.
 */
const ImageData = Schema.String.annotate({
  identifier: "ImageData",
  description: "base64, or a data URL (data:image/…;base64,…)",
  message: "must be a string: base64, or a data URL",
});

const settingSchema = (name: TryOnSettingName) =>
  oneOf(TRYON_SETTING_VALUES[name]).annotate({
    identifier: `${name[0]!.toUpperCase()}${name.slice(1)}`,
    default: DEFAULT_TRYON_SETTINGS[name],
    description: Object.entries(TRYON_SETTING_DESCRIPTIONS[name] as Readonly<Record<string, string>>)
      .map(([value, what]) => `${value}: ${what}`)
      .join("; "),
  });

const settingFields = Object.fromEntries(TRYON_SETTING_NAMES.map((name) => [name, settingSchema(name)])) as {
  readonly [K in TryOnSettingName]: ReturnType<typeof settingSchema>;
};

/** Every try-on setting, resolved: what a response echoes. */
export const TryOnSettings = Schema.Struct(settingFields).annotate({ identifier: "TryOnSettings" });

/** Any other name: refused, naming the settings there are. */
const OtherSettingName = Schema.String.check(Schema.isPattern(new RegExp(`^(?!(?:${TRYON_SETTING_NAMES.join("|")})$)`, "u")));
const UnknownSetting = Schema.Never.annotate({ message: `unknown setting; allowed settings: ${TRYON_SETTING_NAMES.join(", ")}` });

/** What a client may send: each setting optional, the default applied when left out; no other field. */
const TryOnSettingsInput = Schema.StructWithRest(
  Schema.Struct(Object.fromEntries(TRYON_SETTING_NAMES.map((name) => [name, Schema.optionalKey(settingFields[name])]))),
  [Schema.Record(OtherSettingName, UnknownSetting)],
).annotate({ identifier: "TryOnSettingsInput", description: "any of the settings; one left out gets its default" });

export const VirtualTryOnBody = Schema.Struct({
  personImage: ImageData,
  clothingImage: ImageData,
  settings: Schema.optionalKey(TryOnSettingsInput),
}).annotate({ identifier: "VirtualTryOnRequest", description: "clothingImage: a product shot on a plain or transparent background" });

/** Either form refused says the same, once (decodeBody merges equal details). */
const languageRefusal = `not supported; allowed: ${ocrAutoLanguage}, a language GET /ocr/languages lists, or up to ${maxCombinedOcrLanguages} of them joined by "+" (eng+deu)`;
const OcrLanguageCode = oneOf([ocrAutoLanguage, ...ocrLanguages]).annotate({ identifier: "OcrLanguageCode", message: languageRefusal });
const codeAlternatives = `(?:${ocrLanguages.join("|")})`;
/** Codes the catalog knows, joined by "+": alternatives of fixed words, so matching is linear. */
const CombinedOcrLanguages = Schema.String.check(
  Schema.isMaxLength(Math.max(...ocrLanguages.map((code) => code.length + 1)) * maxCombinedOcrLanguages),
  Schema.isPattern(new RegExp(`^${codeAlternatives}(?:\\+${codeAlternatives}){1,${maxCombinedOcrLanguages - 1}}$`, "u")),
).annotate({ identifier: "CombinedOcrLanguages", description: `${maxCombinedOcrLanguages} codes at most, each once`, message: languageRefusal });

const OcrLanguage = Schema.Union([OcrLanguageCode, CombinedOcrLanguages]).annotate({
  identifier: "OcrLanguage",
  default: ocrAutoLanguage,
  description:
    `auto: the script, then the language, are detected and reported; or a code GET /ocr/languages lists (${ocrLanguages.length} languages), ` +
    `or up to ${maxCombinedOcrLanguages} of them joined by "+" (eng+deu). A language the configured engine does not read is a 400 INVALID_REQUEST.`,
});

export const OcrOutputFormat = oneOf(ocrOutputFormats).annotate({ identifier: "OcrOutputFormat" });

export const OcrBody = Schema.Struct({
  image: ImageData,
  language: Schema.optionalKey(OcrLanguage),
  outputFormat: Schema.optionalKey(OcrOutputFormat),
}).annotate({ identifier: "OcrRequest", description: "language defaults to auto, outputFormat to text" });

const Fraction = Schema.Finite.check(Schema.isBetween({ minimum: 0, maximum: 1 }));

export const Focus = Schema.Union([
  oneOf(FOCUS_NAMES).annotate({ identifier: "FocusName" }),
  Schema.Struct({
    x: Fraction.annotate({ description: "0 = left edge, 1 = right edge" }),
    y: Fraction.annotate({ description: "0 = top edge, 1 = bottom edge" }),
  }).annotate({ identifier: "FocalPoint", description: "a focal point, as fractions of the image's width and height (after EXIF orientation)" }),
]).annotate({
  identifier: "Focus",
  default: "auto",
  description:
    "where a template that crops to fill takes its window (other templates ignore it). auto: every face when they fit, else the largest " +
    "(with the others that fit beside it), with headroom; no face: the most salient region. face: faces, else the centre. " +
    "attention: the most salient region (no face detection). centre: the centre. A focal point: the window holds it, centred on it as far as the image allows",
  examples: ["auto", { x: 0.62, y: 0.3 }],
});

export const GenerateFormat = oneOf(GENERATE_FORMATS).annotate({
  identifier: "GenerateFormat",
  description:
    "auto: the resultUrl serves AVIF, WebP or JPEG as the fetching browser's Accept header prefers (Vary: Accept), the result kept as a JPEG " +
    "(data.format jpeg; an upload's transparency flattened on white). Left out: the template's own format (JPEG templates negotiate anyway). " +
    "A template whose result is transparent or a lossless PNG (GET /templates: autoFormat false) refuses it with 400",
});

/**
 * The layouts a call may name: the default and each variant a template can hold, each once; the use
 * case holds a call to the template's own (a variant it lacks or one named twice is refused there).
 */
const MAX_VARIANTS_PER_CALL = DESIGN_LIMITS.maxVariants + 1;

/**
 * `variants`, `text` and `images` belong to the custom form alone: a catalog template has one layout
 * and no named layers, so a catalog body that names them is refused rather than drawn without them
 * (and charged as if they had been used).
 */
const customOnly = (field: "variants" | "text" | "images", identifier: string, why: string) =>
  Schema.Never.annotate({
    identifier,
    description: `not taken: ${field} ${why} (templateType custom)`,
    message: `only templateType custom takes ${field}: ${field} ${why}`,
  });
const CatalogVariants = customOnly("variants", "CatalogVariants", "are layouts of your own templates; a catalog template has one");
const CatalogText = customOnly("text", "CatalogText", "fills the text layers of your own templates; a catalog template has none");
const CatalogImages = customOnly("images", "CatalogImages", "fills the image layers of your own templates; a catalog template has none");

/** A catalog template applied to the image: template and templateType from the catalog the use case checks against. */
const CatalogGenerateRequest = Schema.Struct({
  image: ImageData,
  template: TemplateName,
  templateType: TemplateType,
  focus: Schema.optionalKey(Focus),
  format: Schema.optionalKey(GenerateFormat),
  text: Schema.optionalKey(CatalogText),
  images: Schema.optionalKey(CatalogImages),
  variants: Schema.optionalKey(CatalogVariants),
}).annotate({ identifier: "CatalogGenerateRequest", description: "a template of GET /templates applied to image" });

/** One of the account's own templates drawn: `templateType: "custom"` picks this form, and only this form judges the body. */
const CustomGenerateRequest = Schema.Struct({
  templateType: Schema.Literal("custom").annotate({ identifier: "CustomTemplateType", description: "one of your own templates (POST /templates)" }),
  template: Schema.String.annotate({
    identifier: "CustomTemplateRef",
    description: "your template's name or id",
    message: "must be a string: your template's name or id",
  }),
  image: Schema.optionalKey(ImageData),
  focus: Schema.optionalKey(Focus),
  format: Schema.optionalKey(GenerateFormat),
  text: Schema.optionalKey(
    Schema.Record(Schema.String, Schema.String).annotate({ identifier: "TemplateText", description: "a text layer's content, by its name" }),
  ),
  images: Schema.optionalKey(
    Schema.Record(Schema.String, ImageData).annotate({ identifier: "TemplateImages", description: "an image layer's picture, by its name" }),
  ),
  variants: Schema.optionalKey(
    Schema.Array(Schema.String)
      .check(
        Schema.isMinLength(1, { message: `names 1 to ${MAX_VARIANTS_PER_CALL} layouts` }),
        Schema.isMaxLength(MAX_VARIANTS_PER_CALL, {
          message: `names 1 to ${MAX_VARIANTS_PER_CALL} layouts: a template holds ${DEFAULT_VARIANT} and at most ${DESIGN_LIMITS.maxVariants} variants, each named once`,
        }),
      )
      .annotate({
        identifier: "TemplateVariants",
        description:
          `custom templates: the layouts to draw in one call, by name (${DEFAULT_VARIANT}: the default canvas and layers), each once, ${MAX_VARIANTS_PER_CALL} at most ` +
          `(${DEFAULT_VARIANT} and the ${DESIGN_LIMITS.maxVariants} variants a template may hold); answered with data.results, one per variant. ` +
          "Each variant is one transformation, reserved together: all are charged, or none. Left out: the default layout alone",
        examples: [["default", "story"]],
      }),
  ),
}).annotate({
  identifier: "CustomGenerateRequest",
  description: "one of your own templates drawn: image fills its photo layer (required when it has one), text and images its named layers",
});

export const GenerateBody = Schema.Union([CatalogGenerateRequest, CustomGenerateRequest]).annotate({
  identifier: "GenerateImageRequest",
  description: "a catalog template applied to an image, or (templateType custom) one of your own templates drawn",
});
