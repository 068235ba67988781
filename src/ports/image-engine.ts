import { Context, type Effect } from "effect";
import type { Template } from "../domain/template-catalog.ts";
import type { DependencyUnavailable, EngineBusy, EngineTimeout, InvalidImage } from "./errors.ts";
import type { RenderedImage, ValidatedImage } from "./image.ts";

/**
 * Applies a catalog template (a recipe of steps) to an image. DependencyUnavailable: a template
 * that needs a person mask could not get one from the segmenter.
 */
export interface ImageEngineShape {
  readonly render: (
    image: ValidatedImage,
    template: Template,
  ) => Effect.Effect<RenderedImage, InvalidImage | EngineBusy | EngineTimeout | DependencyUnavailable>;
}

export class ImageEngine extends Context.Service<ImageEngine, ImageEngineShape>()("ImageEngine") {}
