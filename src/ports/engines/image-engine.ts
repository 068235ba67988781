import { Context, type Effect } from "effect";
import type { DesignLayout } from "../../domain/account-templates/account-template-design.ts";
import type { Face, Focus } from "../../domain/crop-window.ts";
import type { Template, TemplateOutput } from "../../domain/template-catalog/template.ts";
import type { DependencyUnavailable, EngineBusy, EngineTimeout, InvalidImage } from "../errors.ts";
import type { RenderedImage, RenderedTemplate, ValidatedImage } from "./image.ts";

export interface RenderOptions {
  /** Where a crop to fill takes its window; default: the template's own (crop-window.ts). */
  readonly focus?: Focus;
}

/** What one render of an account's design draws with, besides the design itself. */
export interface DesignInputs {
  /** Fills the photo layer; without one, the layer shows the canvas. */
  readonly photo?: ValidatedImage;
  /** Each image layer's picture, by the layer's name: the design's own or the call's. */
  readonly images: Readonly<Record<string, ValidatedImage>>;
  /** Each text layer's content, by the layer's name: the design's own or the call's. */
  readonly text: Readonly<Record<string, string>>;
  readonly focus?: Focus;
  /**
   * The faces already found in the photo (in its pixels), by an earlier layout of the same call:
   * a photo drawn into several layouts is looked at for faces once, not once per layout.
   */
  readonly photoFaces?: ReadonlyArray<Face>;
}

/**
 * Applies a catalog template (a recipe of steps) to an image. DependencyUnavailable: a template
 * that needs a person mask could not get one from the segmenter, or a face detector failed.
 * Every adapter keeps these rules (test/contract/support/image-engine-contract.ts checks them):
 * - a render comes out at the template's output size and in its format, and reports the size and
 *   media type of what it encoded;
 * - the image is read as displayed, after its EXIF orientation;
 * - `transcode` keeps the size and colours, in the format asked for;
 * - `renderDesign` draws on a canvas of the layout's size, format and background;
 * - pixel data that does not decode (the inspector reads only headers) fails with InvalidImage.
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
  /** Draws an account's design (domain/template-design.ts) layer by layer on its canvas. */
  readonly renderDesign: (
    design: DesignLayout,
    inputs: DesignInputs,
  ) => Effect.Effect<RenderedTemplate, InvalidImage | EngineBusy | EngineTimeout | DependencyUnavailable>;
}

export class ImageEngine extends Context.Service<ImageEngine, ImageEngineShape>()("ImageEngine") {}
