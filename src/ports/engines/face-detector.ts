import { Context, type Effect } from "effect";
import type { Face } from "../../domain/crop-window.ts";
import type { DependencyUnavailable } from "../errors.ts";

/** Decoded pixels handed to the detector: 8-bit, interleaved, grey or sRGB, alpha ignored. */
export interface FacePixels {
  readonly data: Uint8Array;
  readonly width: number;
  readonly height: number;
  readonly channels: 1 | 2 | 3 | 4;
}

/**
 * Finds faces (frontal and three-quarter) in an image; boxes and eyes in its pixels. Every adapter
 * keeps these rules (test/contract/support/face-detector-contract.ts checks them):
 * - one Face per face, its box over the face (hairline to chin), its eyes, when given, inside the
 *   box, its score in (0, 1]; none where there is no face;
 * - it reads grey, RGB and RGBA pixels alike (alpha ignored).
 */
export interface FaceDetectorShape {
  /** The shorter side, in pixels, it reads images at: larger ones are shrunk to it first. */
  readonly workingSide: number;
  readonly detect: (image: FacePixels) => Effect.Effect<ReadonlyArray<Face>, DependencyUnavailable>;
}

export class FaceDetector extends Context.Service<FaceDetector, FaceDetectorShape>()("FaceDetector") {}
