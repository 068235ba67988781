import { Effect } from "effect";
import sharp, { type OutputInfo, type Sharp } from "sharp";
import {
  type Box,
  type CropPlacement,
  type Face,
  type FocalPoint,
  type Focus,
  needsFaces,
  placeCropWindow,
  type Size,
  transformFace,
} from "../../domain/crop-window.ts";
import type { TemplateStep } from "../../domain/template-catalog/template.ts";
import type { FaceDetectorShape } from "../../ports/engines/face-detector.ts";
import type { Framing, ValidatedImage } from "../../ports/engines/image.ts";
import type { DependencyUnavailable } from "../../ports/errors.ts";
import type { Raster } from "./raster.ts";
import { coverPreCrop, open } from "./sharp-template-steps.ts";

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

const faceToUpload = (face: Face, mapping: UploadMapping): Face => {
  const moved = transformFace(face, 1 / mapping.scale, mapping.left, mapping.top);
  return { ...moved, box: toUpload(face.box, mapping), score: Math.round(face.score * 1000) / 1000 };
};

/** A face in the upload's pixels, in the raster's. */
const fromUpload = (face: Face, { scale, left, top }: UploadMapping): Face => transformFace(face, scale, -left * scale, -top * scale);

const scaledTo = (decoding: Sharp, size: Size, scale: number): Sharp =>
  scale === 1 ? decoding : decoding.resize(Math.max(1, Math.round(size.width * scale)), Math.max(1, Math.round(size.height * scale)), { fit: "fill" });

/** Faces in a raster, in the upload's pixels; none unless the focus looks for them. */
export const facesIn = (raster: Raster, mapping: UploadMapping, focus: Focus, detector: FaceDetectorShape | undefined) =>
  detector && needsFaces(focus) ? Effect.map(detector.detect(raster), (found) => found.map((face) => faceToUpload(face, mapping))) : Effect.succeed([]);

/**
 * A cover crop at a fixed place (the centre, or a point), as one libvips pipeline from the upload:
 * decoded (shrunk on load where the format allows), cut, scaled, and left for the caller to encode,
 * so that no copy of the pixels is made in between. Attention and faces keep the raster path
 * (coverFromUpload): there the window is searched on the copy scaled to cover the box, and "auto"
 * without faces must cut where "attention" does.
 */
export const coverAtFixedPlace = (decoder: () => Sharp, image: Size, step: CoverStep, focus: "centre" | FocalPoint) => {
  const window = orCentre(image, step, placeCropWindow(image, step, focus, []));
  const fill = { width: step.width, height: step.height, fit: "cover", withoutEnlargement: step.enlarge === false } as const;
  return { pipeline: decoder().extract(window.window).resize(fill), framing: { crop: { ...window.window, by: window.by }, faces: [] } satisfies Framing };
};

/** A placement left to attention, where attention is not to search: the centre's window instead. */
const orCentre = (image: Size, step: CoverStep, placement: CropPlacement): Exclude<CropPlacement, { by: "attention" }> => {
  const window = placement.by === "attention" ? placeCropWindow(image, step, "centre", []) : placement;
  if (window.by === "attention") throw new Error("a centre placement is never left to attention");
  return window;
};

/**
 * Crops a raster to fill the step's box where the focus puts the window (crop-window.ts), faces
 * (in the upload's pixels) first when it looks for them; libvips' attention strategy places it
 * when the rule leaves it to saliency. Returns the filled raster and the framing in the upload's pixels.
 */
export const frameCover = <E>(
  raster: Raster,
  mapping: UploadMapping,
  step: CoverStep,
  focus: Focus,
  faces: ReadonlyArray<Face>,
  run: RunPipeline<E>,
): Effect.Effect<{ readonly raster: Raster; readonly framing: Framing }, E> =>
  Effect.gen(function* () {
    const placement = placeCropWindow(
      raster,
      step,
      focus,
      faces.map((face) => fromUpload(face, mapping)),
    );
    const fill = { width: step.width, height: step.height, withoutEnlargement: step.enlarge === false };
    const framing = (window: Box, by: Framing["crop"]["by"]): Framing => ({ crop: { ...toUpload(window, mapping), by }, faces });
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

/**
 * A cover crop as the template's first step, straight from the upload. The upload is decoded
 * once, scaled to cover the box (or to the detector's working size where that is larger), and
 * faces are looked for on that copy (the detector shrinks it with libvips): a second decode of
 * its own, beside this one, cost more CPU than detection's own fine run saves in wall time
 * (bench/face-detection-cost.ts; a JPEG's entropy decoding is paid in full at any scale).
 * For shapes far from the box's (coverPreCrop), a copy scaled to be more than the box is never
 * made: the window is placed first (faces, found on a copy decoded at the detector's working
 * size, or a point; the centre where attention would search a huge copy), then decoded alone.
 * Faces already found in this upload (`known`, in its pixels) are used as they are: not looked for again.
 */
export const coverFromUpload = <E>(
  decoder: () => Sharp,
  image: ValidatedImage,
  step: CoverStep,
  focus: Focus,
  detector: FaceDetectorShape | undefined,
  run: RunPipeline<E>,
  known?: ReadonlyArray<Face>,
): Effect.Effect<{ readonly raster: Raster; readonly framing: Framing }, E | DependencyUnavailable> =>
  Effect.gen(function* () {
    const looking = detector !== undefined && needsFaces(focus) && known === undefined;
    const detectionScale = looking ? Math.min(1, (detector?.workingSide ?? 0) / Math.min(image.width, image.height)) : 0;
    const given = needsFaces(focus) ? (known ?? []) : [];
    if (coverPreCrop(step, image) === undefined) {
      const coverScale = Math.max(step.width / image.width, step.height / image.height);
      const { raster } = yield* run(scaledTo(decoder(), image, Math.max(coverScale, detectionScale)));
      const mapping = { scale: raster.width / image.width, left: 0, top: 0 };
      return yield* frameCover(raster, mapping, step, focus, looking ? yield* facesIn(raster, mapping, focus, detector) : given, run);
    }
    const found = looking
      ? yield* Effect.flatMap(run(scaledTo(decoder(), image, detectionScale)), ({ raster }) =>
          facesIn(raster, { scale: raster.width / image.width, left: 0, top: 0 }, focus, detector),
        )
      : given;
    const placement = placeCropWindow(image, step, focus === "attention" ? "centre" : focus, found);
    const window = orCentre(image, step, placement);
    const { raster } = yield* run(decoder().extract(window.window).resize({ width: step.width, height: step.height, fit: "cover" }));
    return { raster, framing: { crop: { ...window.window, by: window.by }, faces: found } };
  });
