import { Schema } from "effect";
import { FOCUS_NAMES } from "../../domain/crop-window.ts";
import {
  DEFAULT_TRYON_SETTINGS,
  TRYON_SETTING_DESCRIPTIONS,
  TRYON_SETTING_NAMES,
  TRYON_SETTING_VALUES,
  type TryOnSettingName,
} from "../../domain/tryon-settings.ts";
import { maxCombinedOcrLanguages, ocrAutoLanguage, ocrLanguageRequestPattern, ocrLanguages, ocrOutputFormats } from "../../ports/ocr-engine.ts";

/**
 * Request bodies as the API accepts them. Unknown properties are ignored: changes are additive.
 * Image fields are any string here: an empty or undecodable image is a 422 INVALID_IMAGE, found
 * when the image is decoded (after the plan and quota checks), not a malformed body.
 */
const NonEmptyString = Schema.String.check(Schema.isMinLength(1));
const ImageData = Schema.String.annotate({ description: "base64, or a data URL (data:image/…;base64,…)" });

const settingSchema = (name: TryOnSettingName) =>
  Schema.Literals(TRYON_SETTING_VALUES[name]).annotate({
    default: DEFAULT_TRYON_SETTINGS[name],
    description: Object.entries(TRYON_SETTING_DESCRIPTIONS[name] as Readonly<Record<string, string>>)
      .map(([value, what]) => `${value}: ${what}`)
      .join("; "),
  });

const settingFields = Object.fromEntries(TRYON_SETTING_NAMES.map((name) => [name, settingSchema(name)])) as {
  readonly [K in TryOnSettingName]: ReturnType<typeof settingSchema>;
};

/** Every try-on setting, resolved: what a response echoes. */
export const TryOnSettings = Schema.Struct(settingFields);

/** What a client may send: each setting optional, the default applied when left out. */
const TryOnSettingsInput = Schema.Struct(Object.fromEntries(TRYON_SETTING_NAMES.map((name) => [name, Schema.optionalKey(settingSchema(name))])));

export const VirtualTryOnBody = Schema.Struct({
  personImage: ImageData,
  clothingImage: ImageData.annotate({ description: "base64 or data URL; a product shot on a plain or transparent background" }),
  settings: Schema.optionalKey(TryOnSettingsInput),
});

/**
 * How the try-on body is decoded: `settings` is resolved by the domain's catalog (the values above
 * come from it), so that an unknown setting is named too, next to every wrong value.
 */
export const VirtualTryOnBodyDecoder = Schema.Struct({ ...VirtualTryOnBody.fields, settings: Schema.optionalKey(Schema.Unknown) });

/** The OCR body as documented. */
export const OcrBody = Schema.Struct({
  image: ImageData,
  language: Schema.optionalKey(
    Schema.String.check(Schema.isPattern(ocrLanguageRequestPattern)).annotate({
      default: ocrAutoLanguage,
      description:
        `auto: the script, then the language, are detected and reported; or a code GET /ocr/languages lists (${ocrLanguages.length} languages), ` +
        `or up to ${maxCombinedOcrLanguages} of them joined by "+" (eng+deu)`,
    }),
  ),
  outputFormat: Schema.optionalKey(Schema.Literals(ocrOutputFormats).annotate({ default: "text" })),
});

/**
 * How the OCR body is decoded: `language` and `outputFormat` are checked by the use case against
 * the configured engine (which may read fewer languages), so the message lists what it reads.
 */
export const OcrBodyDecoder = Schema.Struct({
  ...OcrBody.fields,
  language: Schema.optionalKey(Schema.String),
  outputFormat: Schema.optionalKey(Schema.String),
});

const Fraction = Schema.Finite.check(Schema.isBetween({ minimum: 0, maximum: 1 }));

export const Focus = Schema.Union([
  Schema.Literals(FOCUS_NAMES),
  Schema.Struct({
    x: Fraction.annotate({ description: "0 = left edge, 1 = right edge" }),
    y: Fraction.annotate({ description: "0 = top edge, 1 = bottom edge" }),
  }).annotate({ description: "a focal point, as fractions of the image's width and height (after EXIF orientation)" }),
]).annotate({
  default: "auto",
  description:
    "where a template that crops to fill takes its window (other templates ignore it). auto: every face when they fit, else the largest " +
    "(with the others that fit beside it), with headroom; no face: the most salient region. face: faces, else the centre. " +
    "attention: the most salient region (no face detection). centre: the centre. A focal point: the window holds it, centred on it as far as the image allows",
  examples: ["auto", { x: 0.62, y: 0.3 }],
});

export const GenerateBody = Schema.Struct({
  image: ImageData,
  template: NonEmptyString.annotate({ description: "a template name of GET /templates, e.g. instagram-square" }),
  templateType: NonEmptyString.annotate({ description: "its type, e.g. social" }),
  focus: Schema.optionalKey(Focus),
});
