import { Context, type Effect } from "effect";
import type { Focus } from "../domain/crop-window.ts";
import type { Template, TemplateOutput } from "../domain/template-catalog.ts";
import type { DependencyUnavailable, EngineBusy, EngineTimeout, InvalidImage } from "./errors.ts";
import type { RenderedImage, RenderedTemplate, ValidatedImage } from "./image.ts";

export interface RenderOptions {
  /** Where a crop to fill takes its window; default: the template's own (crop-window.ts). */
  readonly focus?: Focus;
}

/**
 * Applies a catalog template (a recipe of steps) to an image. DependencyUnavailable: a template
 * that needs a person mask could not get one from the segmenter, or a face detector failed.
 */
export interface ImageEngineShape {
  readonly render: (
    image: ValidatedImage,
    template: Template,
    options?: RenderOptions,
  ) => Effect.Effect<RenderedTemplate, InvalidImage | EngineBusy | EngineTimeout | DependencyUnavailable>;
  /** The same image in another format (a result's variant, negotiate-format.ts): same pixels, size and orientation. */
  readonly transcode: (
    image: ValidatedImage,
    output: Pick<TemplateOutput, "format" | "quality">,
  ) => Effect.Effect<RenderedImage, InvalidImage | EngineBusy | EngineTimeout>;
}

export class ImageEngine extends Context.Service<ImageEngine, ImageEngineShape>()("ImageEngine") {}
