import { Schema } from "effect";

/** Request bodies as the API accepts them. Unknown properties are ignored: changes are additive. */
const NonEmptyString = Schema.String.check(Schema.isMinLength(1));

/** `settings` is checked value by value against the try-on catalog, so each error names the allowed values. */
export const VirtualTryOnBody = Schema.Struct({
  personImage: NonEmptyString,
  clothingImage: NonEmptyString,
  settings: Schema.optionalKey(Schema.Unknown),
});

export const GenerateBody = Schema.Struct({
  image: NonEmptyString,
  template: NonEmptyString,
  templateType: NonEmptyString,
});
