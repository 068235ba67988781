import type { AppliedFocus, Box } from "../../domain/crop-window.ts";
import type { Placeholder, RenderedImage, RenderedTemplate } from "../../ports/engines/image.ts";

/** What a `/generate` call made, from a catalog template or an account's own. */
export interface GeneratedResult {
  readonly resultId: string;
  readonly expiresAt: Date;
  readonly template: string;
  readonly templateType: string;
  /** An account's own template: its id and the version drawn. */
  readonly templateId?: string;
  readonly templateVersion?: number;
  /** An account's template called with variants: the variant drawn. */
  readonly variant?: string;
  readonly format: RenderedImage["format"];
  readonly width: number;
  readonly height: number;
  readonly bytes: number;
  /** The window a crop to fill took (upload pixels), or null when the template does not crop. */
  readonly crop: (Box & { readonly by: AppliedFocus }) | null;
  readonly faces: ReadonlyArray<{ readonly box: Box; readonly score: number }>;
  readonly placeholder: Placeholder;
  /** An account's template called with variants: every variant's result, in the order asked (the first's fields also above). */
  readonly results?: ReadonlyArray<GeneratedResult>;
}

/** What a rendered image says of itself in a GeneratedResult, whichever template drew it. */
export const renderedFields = (rendered: RenderedTemplate) => ({
  format: rendered.format,
  width: rendered.width,
  height: rendered.height,
  bytes: rendered.bytes.byteLength,
  crop: rendered.framing?.crop ?? null,
  placeholder: rendered.placeholder,
  faces: (rendered.framing?.faces ?? []).map(({ box, score }) => ({ box, score })),
});
