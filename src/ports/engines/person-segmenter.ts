import { Context, type Effect } from "effect";
import type { DependencyUnavailable, EngineBusy, EngineTimeout, InvalidImage } from "../errors.ts";
import type { ValidatedImage } from "./image.ts";

/** Foreground probability per pixel, at the image's displayed size (after EXIF orientation). */
export interface SegmentationMask {
  readonly width: number;
  readonly height: number;
  /** width × height bytes, 0 = background, 255 = person. */
  readonly alpha: Uint8Array;
}

/** Separates people from the background (used by background templates and try-on). */
export interface PersonSegmenterShape {
  readonly segment: (image: ValidatedImage) => Effect.Effect<SegmentationMask, InvalidImage | EngineBusy | EngineTimeout | DependencyUnavailable>;
}

export class PersonSegmenter extends Context.Service<PersonSegmenter, PersonSegmenterShape>()("PersonSegmenter") {}
