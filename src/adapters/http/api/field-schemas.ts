import { Schema } from "effect";
import { TEMPLATES, templateTypes } from "../../../domain/template-catalog/template-catalog.ts";

/**
 * Field schemas more than one group's bodies take: a closed set of names, and the catalog's template
 * names and types (GET /templates lists them, POST /generate takes them, a result names them).
 */

/** One of `values`; a refusal lists them. */
export const oneOf = <const Values extends readonly [string, ...Array<string>]>(values: Values) =>
  Schema.Literals(values).annotate({ message: `must be one of ${values.join(", ")}` });

const uniqueNames = (names: ReadonlyArray<string>) => [...new Set(names)] as unknown as readonly [string, ...Array<string>];

export const TemplateName = oneOf(uniqueNames(TEMPLATES.map((t) => t.template))).annotate({
  identifier: "TemplateName",
  description: "a template of GET /templates, e.g. instagram-square",
});
export const TemplateType = oneOf(uniqueNames(templateTypes(TEMPLATES))).annotate({
  identifier: "TemplateType",
  message: `must be one of ${uniqueNames(templateTypes(TEMPLATES)).join(", ")}, or custom for your own templates`,
  description: "a template's type, e.g. social",
});

/** A catalog template's type, or custom: one of the calling account's own templates (what a result says it was made with). */
export const GenerateTemplateType = oneOf([...uniqueNames(templateTypes(TEMPLATES)), "custom"]).annotate({
  identifier: "GenerateTemplateType",
  description: "a catalog template's type (GET /templates), or custom for one of your own templates (POST /templates)",
});
