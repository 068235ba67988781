import { Context, Data, type Effect } from "effect";
import type { TryOnSettings } from "../domain/tryon-settings.ts";
import type { DependencyUnavailable, EngineBusy, EngineTimeout, InvalidImage } from "./errors.ts";
import type { RenderedImage, ValidatedImage } from "./image.ts";

/** Why the engine cannot use otherwise valid images (HTTP 422; the request costs no quota). */
export type UnusableInputCode = "NO_PERSON_DETECTED" | "MULTIPLE_PEOPLE" | "NO_GARMENT_DETECTED";

export class UnusableTryOnInput extends Data.TaggedError("UnusableTryOnInput")<{
  readonly code: UnusableInputCode;
  /** The request field that holds the unusable image. */
  readonly field: "personImage" | "clothingImage";
  readonly message: string;
}> {}

export interface Point {
  readonly x: number;
  readonly y: number;
}

/** A body keypoint in person-image pixels (MoveNet's 17, COCO order). */
export interface Keypoint extends Point {
  readonly name: string;
  readonly score: number;
}

export interface TryOnResult {
  /** The composite, at the person image's displayed size. */
  readonly image: RenderedImage;
  readonly settings: TryOnSettings;
  /** What the engine detected, in person-image pixels (before any mirroring): for logs and tests. */
  readonly detection: {
    readonly keypoints: ReadonlyArray<Keypoint>;
    /** The torso the garment was fitted to: shoulders to hips, clockwise from the image-left shoulder. */
    readonly torso: ReadonlyArray<Point>;
  };
}

export interface TryOnEngineShape {
  readonly tryOn: (request: {
    readonly person: ValidatedImage;
    readonly clothing: ValidatedImage;
    readonly settings: TryOnSettings;
  }) => Effect.Effect<TryOnResult, InvalidImage | UnusableTryOnInput | EngineBusy | EngineTimeout | DependencyUnavailable>;
}

export class TryOnEngine extends Context.Service<TryOnEngine, TryOnEngineShape>()("TryOnEngine") {}
