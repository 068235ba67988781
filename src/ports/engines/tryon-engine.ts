import { Context, Data, type Effect } from "effect";
import type { TryOnSettings } from "../../domain/tryon-settings.ts";
import type { DependencyUnavailable, EngineBusy, EngineTimeout, InvalidImage } from "../errors.ts";
import type { RenderedImage, ValidatedImage } from "./image.ts";

/**
 * Why the engine cannot use otherwise valid images (HTTP 422; the request costs no quota).
 * UNSUPPORTED_GARMENT: the clothing image shows trousers, a skirt or a dress; tops only are placed.
 * PERSON_TURNED_AWAY: no face above the shoulders (turned away, or the head out of the photo), or a body
 * side-on to the camera or a face in profile (turned sideways).
 * TORSO_NOT_VISIBLE: too little of the torso is in the photo, or seen as the person, to place a garment on.
 */
export const UNUSABLE_INPUT_CODES = [
  "NO_PERSON_DETECTED",
  "MULTIPLE_PEOPLE",
  "PERSON_TURNED_AWAY",
  "TORSO_NOT_VISIBLE",
  "NO_GARMENT_DETECTED",
  "UNSUPPORTED_GARMENT",
] as const;
export type UnusableInputCode = (typeof UNUSABLE_INPUT_CODES)[number];

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

/** How a result was made: the garment's parts warped in 2-D and laid over the photo (no generative model). */
export const TRYON_METHOD = "garment-overlay-2d";

/** The garments the engine places, told apart by the product shot's outline. */
export type GarmentKind = "short-sleeve" | "long-sleeve" | "sleeveless";

export interface TryOnResult {
  /** The composite, at the person image's displayed size. */
  readonly image: RenderedImage;
  readonly settings: TryOnSettings;
  /**
   * Share (0-1) of the person's torso (their silhouette between the shoulder and hip lines, the
   * arms in front of it and the face left out) that the new garment covers; on the rest, what
   * the person wore still shows.
   */
  readonly coverage: number;
  readonly method: typeof TRYON_METHOD;
  /**
   * How sure the engine is of its reading of the person (0-1): the keypoints' scores, how frontal the
   * shoulders are, and how much of the torso is in the photo and seen as the person.
   */
  readonly confidence: number;
  /** What the engine detected, in person-image pixels (before any mirroring): for logs and tests. */
  readonly detection: {
    readonly keypoints: ReadonlyArray<Keypoint>;
    /** The torso the garment was fitted to: shoulders to hips, clockwise from the image-left shoulder. */
    readonly torso: ReadonlyArray<Point>;
    readonly garment: GarmentKind;
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
