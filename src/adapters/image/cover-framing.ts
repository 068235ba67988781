import { Effect } from "effect";
import sharp, { type OutputInfo, type Sharp } from "sharp";
import { type Box, type Face, type Focus, needsFaces, placeCropWindow, type Size } from "../../domain/crop-window.ts";
import type { TemplateStep } from "../../domain/template-catalog.ts";
import type { DependencyUnavailable } from "../../ports/errors.ts";
import type { FaceDetectorShape } from "../../ports/face-detector.ts";
import type { Framing, ValidatedImage } from "../../ports/image.ts";
import { coverPreCrop, open, type Raster } from "./sharp-template-steps.ts";

type CoverStep = Extract<TemplateStep, { op: "resize" }>;

/** How a raster's pixels map back to the upload's: divide by `scale`, then add the offset. */
export interface UploadMapping {
  readonly scale: number;
  readonly left: number;
  readonly top: number;
}

/** Runs a libvips pipeline to raw pixels, with its info (a crop strategy reports its offsets there). */
export type RunPipeline<E> = (image: Sharp) => Effect.Effect<{ readonly raster: Raster; readonly info: OutputInfo }, E>;

export const isCover = (step: TemplateStep | undefined): step is CoverStep => step?.op === "resize" && step.fit === "cover";

/** The focus a cover step uses when the request names none: the template's own position, else auto. */
export const templateFocus = (step: CoverStep): Focus => step.position ?? "auto";

const toUpload = (box: Box, { scale, left, top }: UploadMapping): Box => ({
  left: Math.round(box.left / scale + left),
  top: Math.round(box.top / scale + top),
  width: Math.round(box.width / scale),
  height: Math.round(box.height / scale),
});

const faceToUpload = (face: Face, mapping: UploadMapping): Face => ({
  box: toUpload(face.box, mapping),
  score: Math.round(face.score * 1000) / 1000,
  ...(face.eyes
    ? {
        eyes: [
          { x: Math.round(face.eyes[0].x / mapping.scale + mapping.left), y: Math.round(face.eyes[0].y / mapping.scale + mapping.top) },
          { x: Math.round(face.eyes[1].x / mapping.scale + mapping.left), y: Math.round(face.eyes[1].y / mapping.scale + mapping.top) },
        ] as const,
      }
    : {}),
});

/**
 * Crops a raster to fill the step's box where the focus puts the window (crop-window.ts), faces
 * first when it looks for them; libvips' attention strategy places it when the rule leaves it
 * to saliency. Returns the filled raster and the framing in the upload's pixels.
 */
export const frameCover = <E>(
  raster: Raster,
  mapping: UploadMapping,
  step: CoverStep,
  focus: Focus,
  detector: FaceDetectorShape | undefined,
  run: RunPipeline<E>,
): Effect.Effect<{ readonly raster: Raster; readonly framing: Framing }, E | DependencyUnavailable> =>
  Effect.gen(function* () {
    const faces = detector && needsFaces(focus) ? yield* detector.detect(raster) : [];
    const placement = placeCropWindow(raster, step, focus, faces);
    const fill = { width: step.width, height: step.height, withoutEnlargement: step.enlarge === false };
    const framing = (window: Box, by: Framing["crop"]["by"]): Framing => ({
      crop: { ...toUpload(window, mapping), by },
      faces: faces.map((face) => faceToUpload(face, mapping)),
    });
    if (placement.by === "attention") {
      const { raster: filled, info } = yield* run(open(raster).resize({ ...fill, fit: "cover", position: sharp.strategy.attention }));
      // The offsets are those of the crop in the copy scaled to cover the box, negated.
      const k = Math.max(step.width / raster.width, step.height / raster.height);
      const window = { left: -(info.cropOffsetLeft ?? 0) / k, top: -(info.cropOffsetTop ?? 0) / k, width: step.width / k, height: step.height / k };
      return { raster: filled, framing: framing(window, "attention") };
    }
    const { raster: filled } = yield* run(
      open(raster)
        .extract(placement.window)
        .resize({ ...fill, fit: "cover" }),
    );
    return { raster: filled, framing: framing(placement.window, placement.by) };
  });

const scaledTo = (decoding: Sharp, size: Size, scale: number): Sharp =>
  scale === 1 ? decoding : decoding.resize(Math.max(1, Math.round(size.width * scale)), Math.max(1, Math.round(size.height * scale)), { fit: "fill" });

/**
 * A cover crop as the template's first step, straight from the upload. Ordinarily the upload is
 * decoded scaled (never cropped) just enough to cover the box, and at least to the detector's
 * working size when faces are looked for, so that one decode serves both; then framed. For shapes
 * far from the box's (coverPreCrop), a copy scaled to be more than the box is never made: the
 * window is placed on a small copy (faces or a point; the centre where attention would search a
 * huge copy), then decoded alone.
 */
export const coverFromUpload = <E>(
  decoder: () => Sharp,
  image: ValidatedImage,
  step: CoverStep,
  focus: Focus,
  detector: FaceDetectorShape | undefined,
  run: RunPipeline<E>,
): Effect.Effect<{ readonly raster: Raster; readonly framing: Framing }, E | DependencyUnavailable> =>
  Effect.gen(function* () {
    const detectionSide = detector?.workingSide ?? 0;
    const shortest = Math.min(image.width, image.height);
    if (coverPreCrop(step, image) === undefined) {
      const scale = Math.max(step.width / image.width, step.height / image.height, Math.min(1, detectionSide / shortest));
      const { raster } = yield* run(scaledTo(decoder(), image, scale));
      return yield* frameCover(raster, { scale: raster.width / image.width, left: 0, top: 0 }, step, focus, detector, run);
    }
    const looking = detector !== undefined && needsFaces(focus);
    const small = looking ? (yield* run(scaledTo(decoder(), image, Math.min(1, detectionSide / shortest)))).raster : undefined;
    const found = small && detector ? yield* detector.detect(small) : [];
    const mapping = { scale: small ? small.width / image.width : 1, left: 0, top: 0 };
    const faces = found.map((face) => faceToUpload(face, mapping));
    const placement = placeCropWindow(image, step, focus === "attention" ? "centre" : focus, faces);
    const window = placement.by === "attention" ? placeCropWindow(image, step, "centre", []) : placement;
    if (window.by === "attention") return yield* Effect.die(new Error("a centre placement is never left to attention"));
    const { raster } = yield* run(decoder().extract(window.window).resize({ width: step.width, height: step.height, fit: "cover" }));
    return { raster, framing: { crop: { ...window.window, by: window.by }, faces } };
  });
