import { Context, type Effect } from "effect";
import type { ImageTooLarge, InvalidImage } from "../errors.ts";
import type { ValidatedImage } from "./image.ts";

/**
 * Accepts or refuses client bytes before any engine decodes them: format allow-list
 * (no SVG or other scriptable formats) and the pixel limit, read from the header only.
 */
export interface ImageInspectorShape {
  readonly inspect: (bytes: Uint8Array) => Effect.Effect<ValidatedImage, InvalidImage | ImageTooLarge>;
}

export class ImageInspector extends Context.Service<ImageInspector, ImageInspectorShape>()("ImageInspector") {}
