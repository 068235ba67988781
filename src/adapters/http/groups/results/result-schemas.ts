import { URL_FORMATS } from "../../../../domain/negotiate-format.ts";
import { oneOf } from "../../api/field-schemas.ts";

/** ?format= on a result URL: outside its signature, since it only picks a representation of the same result (docs/api-decisions.md). */
export const ResultFormat = oneOf(URL_FORMATS).annotate({
  identifier: "ResultFormat",
  description: `the result in this format (${URL_FORMATS.join(", ")}), whatever the Accept header says; made once, then kept for the result's life`,
});
