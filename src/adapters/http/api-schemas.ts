import { Schema } from "effect";

/**
 * Request bodies as the API accepts them. Unknown properties are ignored: changes are additive.
 * Image fields are any string here: an empty or undecodable image is a 422 INVALID_IMAGE, found
 * when the image is decoded (after the plan and quota checks), not a malformed body.
 */
const NonEmptyString = Schema.String.check(Schema.isMinLength(1));
const ImageData = Schema.String;

/** `settings` is checked value by value against the try-on catalog, so each error names the allowed values. */
export const VirtualTryOnBody = Schema.Struct({
  personImage: ImageData,
  clothingImage: ImageData,
  settings: Schema.optionalKey(Schema.Unknown),
});

/** `language` and `outputFormat` are checked against the configured engine, so errors name its values. */
export const OcrBody = Schema.Struct({
  image: ImageData,
  language: Schema.optionalKey(Schema.String),
  outputFormat: Schema.optionalKey(Schema.String),
});

export const GenerateBody = Schema.Struct({
  image: ImageData,
  template: NonEmptyString,
  templateType: NonEmptyString,
});
