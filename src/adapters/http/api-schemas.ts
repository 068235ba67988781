import { Schema } from "effect";
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
    message: `allowed values: ${TRYON_SETTING_VALUES[name].join(", ")}`,
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

/** A key that names no setting: refused by name, so that a misspelt setting is not silently ignored. */
const UnknownSetting = Schema.Record(
  Schema.String.check(Schema.makeFilter((name: string) => !(TRYON_SETTING_NAMES as ReadonlyArray<string>).includes(name))),
  Schema.Never.annotate({ message: `unknown setting; allowed settings: ${TRYON_SETTING_NAMES.join(", ")}` }),
);

/** What a client may send: each setting optional, the default applied when left out. */
const TryOnSettingsInput = Schema.StructWithRest(
  Schema.Struct(Object.fromEntries(TRYON_SETTING_NAMES.map((name) => [name, Schema.optionalKey(settingSchema(name))]))),
  [UnknownSetting],
);

export const VirtualTryOnBody = Schema.Struct({
  personImage: ImageData,
  clothingImage: ImageData.annotate({ description: "base64 or data URL; a product shot on a plain or transparent background" }),
  settings: Schema.optionalKey(TryOnSettingsInput),
});

/** The OCR body as documented. */
export const OcrBody = Schema.Struct({
  image: ImageData,
  language: Schema.optionalKey(
    Schema.String.check(
      Schema.isPattern(ocrLanguageRequestPattern, {
        message: `not a language request; allowed: ${ocrAutoLanguage}, a code GET /ocr/languages lists, or up to ${maxCombinedOcrLanguages} of them joined by "+" (eng+deu)`,
      }),
    ).annotate({
      default: ocrAutoLanguage,
      description:
        `auto: the script, then the language, are detected and reported; or a code GET /ocr/languages lists (${ocrLanguages.length} languages), ` +
        `or up to ${maxCombinedOcrLanguages} of them joined by "+" (eng+deu)`,
    }),
  ),
  outputFormat: Schema.optionalKey(Schema.Literals(ocrOutputFormats).annotate({ default: "text", message: `allowed: ${ocrOutputFormats.join(", ")}` })),
});

export const GenerateBody = Schema.Struct({
  image: ImageData,
  template: NonEmptyString.annotate({ description: "a template name of GET /templates, e.g. instagram-square" }),
  templateType: NonEmptyString.annotate({ description: "its type, e.g. social" }),
});
