import { Schema } from "effect";

/** Request bodies as the API accepts them. Unknown properties are ignored: changes are additive. */
const NonEmptyString = Schema.String.check(Schema.isMinLength(1));

export const GenerateBody = Schema.Struct({
  image: NonEmptyString,
  template: NonEmptyString,
  templateType: NonEmptyString,
});
