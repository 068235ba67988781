import { Context } from "effect";
import type { TemplateFont } from "../../domain/account-templates/account-template-design.ts";

/** A family a text layer may name, with the scripts it draws with glyphs of its own. */
export interface AvailableFont {
  readonly family: TemplateFont;
  readonly scripts: ReadonlyArray<string>;
}

/**
 * The families the image engine can really draw now (issue 45): those of TEMPLATE_FONTS whose every
 * claimed script was drawn with the family's own glyphs when the service started. A family missing
 * here is never listed by GET /templates/fonts, and a design naming it is refused.
 */
export interface TemplateFontsShape {
  readonly available: ReadonlyArray<AvailableFont>;
}

export class TemplateFonts extends Context.Service<TemplateFonts, TemplateFontsShape>()("TemplateFonts") {}
