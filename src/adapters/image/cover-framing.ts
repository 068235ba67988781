import { Effect } from "effect";
import sharp, { type OutputInfo, type Sharp } from "sharp";
import {
  type Box,
  coverWindowSize,
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

/** A crop to fill, placed but not yet run. */
export interface PlacedCover {
  /** The window cut and scaled to the box, left for the caller to encode or keep: no copy of the pixels in between. */
  readonly pipeline: Sharp;
  /** Whether the pipeline decodes the upload (so that its failure is the client's image), not a raster of ours. */
  readonly readsUpload: boolean;
  readonly framing: Framing;
  /** The window in the search copy, where one was made: what the result's placeholder is drawn from (placeholders.ts). */
  readonly preview?: Sharp;
}

/** Where faces come from: found by the detector, or already known (in the upload's pixels). */
export interface FaceSource {
  readonly detector?: FaceDetectorShape | undefined;
  readonly known?: ReadonlyArray<Face> | undefined;
}

/** Whether the detector is to look: the focus wants faces and none are known yet. */
const looksForFaces = (focus: Focus, { detector, known }: FaceSource) => detector !== undefined && needsFaces(focus) && known === undefined;

/** The faces a placement takes without looking: the known ones, where the focus wants faces. */
const givenFaces = (focus: Focus, { known }: FaceSource): ReadonlyArray<Face> => (needsFaces(focus) ? (known ?? []) : []);

/** The shorter side of the copy a window is searched on, where no detector names its working side. */
const SEARCH_SIDE = 384;
const searchSide = (detector: FaceDetectorShape | undefined) => detector?.workingSide ?? SEARCH_SIDE;

/**
 * A raster's small copy, the shorter side at the detector's working side: faces are found on it
 * and libvips' attention looks for the window on it. Attention judges saliency on a map a few dozen
 * pixels across, so the window it picks on the copy is mostly the one it picks on the raster (the
 * same on 86 of 88 pairs of a shared photo at 3000 pixels and a cover box, the other two within 3 %
 * of the side), for a ninth of the pixels; where saliency is ambiguous, attention on a raster scaled
 * to cover the box moves with the upload's size, and on this fixed-size copy it does not
 * (test/int/attention-search-copy.int.test.ts). Bilinear: lanczos3 cost twice the CPU (11 ms
 * against 6 for 1620×1080 → 576×384), and the detector's own coarse copy is bilinear too.
 */
const searchCopy = <E>(raster: Raster, side: number, run: RunPipeline<E>): Effect.Effect<Raster, E> => {
  const scale = Math.min(1, side / Math.min(raster.width, raster.height));
  if (scale === 1) return Effect.succeed(raster);
  const [width, height] = [Math.max(1, Math.round(raster.width * scale)), Math.max(1, Math.round(raster.height * scale))];
  return Effect.map(run(open(raster).resize(width, height, { fit: "fill", kernel: "linear" })), ({ raster: copy }) => copy);
};

/** A window of the raster in its copy's pixels, inside the copy. */
const inCopy = (window: Box, raster: Size, copy: Size): Box => {
  const [kx, ky] = [copy.width / raster.width, copy.height / raster.height];
  const left = Math.min(copy.width - 1, Math.round(window.left * kx));
  const top = Math.min(copy.height - 1, Math.round(window.top * ky));
  return {
    left,
    top,
    width: Math.max(1, Math.min(copy.width - left, Math.round(window.width * kx))),
    height: Math.max(1, Math.min(copy.height - top, Math.round(window.height * ky))),
  };
};

/** Where libvips' attention puts a window of `size` (the raster's pixels), searched on the raster's copy. */
const attentionWindow = <E>(copy: Raster, raster: Size, size: Size, run: RunPipeline<E>): Effect.Effect<Box, E> =>
  Effect.map(
    run(open(copy).resize({ ...inCopy({ left: 0, top: 0, ...size }, raster, copy), fit: "cover", position: sharp.strategy.attention })),
    ({ raster: cut, info }) => {
      // The offsets are those of the crop in the copy scaled to cover the cut, negated.
      const cover = Math.max(cut.width / copy.width, cut.height / copy.height);
      const place = (offset: number | undefined, copySide: number, rasterSide: number, room: number) =>
        Math.min(room, Math.max(0, Math.round((-(offset ?? 0) / cover) * (rasterSide / copySide))));
      return {
        left: place(info.cropOffsetLeft, copy.width, raster.width, raster.width - size.width),
        top: place(info.cropOffsetTop, copy.height, raster.height, raster.height - size.height),
        ...size,
      };
    },
  );

/** Faces in a raster, in the upload's pixels; none unless the focus looks for them. */
const facesIn = (raster: Raster, mapping: UploadMapping, focus: Focus, detector: FaceDetectorShape | undefined) =>
  detector && needsFaces(focus) ? Effect.map(detector.detect(raster), (found) => found.map((face) => faceToUpload(face, mapping))) : Effect.succeed([]);

/**
 * A cover crop at a fixed place (the centre, or a point), straight from the upload: decoded (shrunk
 * on load where the format allows), cut and scaled in one libvips pipeline. Attention and faces
 * need a copy of the pixels to search first (coverFromUpload).
 */
export const coverAtFixedPlace = (decoder: () => Sharp, image: Size, step: CoverStep, focus: "centre" | FocalPoint): PlacedCover => {
  const window = orCentre(image, step, placeCropWindow(image, step, focus, []));
  return {
    pipeline: decoder().extract(window.window).resize(coverFill(step)),
    readsUpload: true,
    framing: { crop: { ...window.window, by: window.by }, faces: [] },
  };
};

/** A placement left to attention, where attention is not to search: the centre's window instead. */
const orCentre = (image: Size, step: CoverStep, placement: CropPlacement): Exclude<CropPlacement, { by: "attention" }> => {
  const window = placement.by === "attention" ? placeCropWindow(image, step, "centre", []) : placement;
  if (window.by === "attention") throw new Error("a centre placement is never left to attention");
  return window;
};

const coverFill = (step: CoverStep) => ({ width: step.width, height: step.height, fit: "cover", withoutEnlargement: step.enlarge === false }) as const;

/**
 * Places a crop to fill on a raster where the focus puts the window (crop-window.ts): faces (in the
 * upload's pixels) first when it looks for them, libvips' attention where the rule leaves it to
 * saliency, both on the raster's small copy (searchCopy), made only when one of them needs it.
 * The framing is in the upload's pixels.
 */
export const frameCover = <E>(
  raster: Raster,
  mapping: UploadMapping,
  step: CoverStep,
  focus: Focus,
  faces: FaceSource,
  run: RunPipeline<E>,
): Effect.Effect<PlacedCover, E | DependencyUnavailable> =>
  Effect.gen(function* () {
    let copy: Raster | undefined;
    const copyOnce = () =>
      copy
        ? Effect.succeed(copy)
        : Effect.map(searchCopy(raster, searchSide(faces.detector), run), (made) => {
            copy = made;
            return made;
          });
    const found = looksForFaces(focus, faces)
      ? yield* Effect.flatMap(copyOnce(), (small) => facesIn(small, { ...mapping, scale: (mapping.scale * small.width) / raster.width }, focus, faces.detector))
      : givenFaces(focus, faces);
    const placement = placeCropWindow(
      raster,
      step,
      focus,
      found.map((face) => fromUpload(face, mapping)),
    );
    const window = placement.by === "attention" ? yield* attentionWindow(yield* copyOnce(), raster, coverWindowSize(raster, step), run) : placement.window;
    const preview = copy && open(copy).extract(inCopy(window, raster, copy));
    return {
      pipeline: open(raster).extract(window).resize(coverFill(step)),
      readsUpload: false,
      framing: { crop: { ...toUpload(window, mapping), by: placement.by }, faces: found },
      ...(preview ? { preview } : {}),
    };
  });

/**
 * A cover crop as the template's first step, straight from the upload. The upload is decoded
 * once, scaled to cover the box (or to the detector's working size where that is larger), and the
 * window is placed on that copy (frameCover): a second decode of its own for the detector, beside
 * this one, cost more CPU than detection's own fine run saves in wall time
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
): Effect.Effect<PlacedCover, E | DependencyUnavailable> =>
  Effect.gen(function* () {
    const faces = { detector, known };
    const looking = looksForFaces(focus, faces);
    const searchScale = Math.min(1, searchSide(detector) / Math.min(image.width, image.height));
    const detectionScale = looking ? searchScale : 0;
    if (coverPreCrop(step, image) === undefined) {
      const coverScale = Math.max(step.width / image.width, step.height / image.height);
      // Attention searches a copy at least this size whether faces are looked for or not: "auto" without faces
      // then cuts exactly where "attention" does.
      const atLeast = looking || focus === "auto" || focus === "attention" ? searchScale : 0;
      const { raster } = yield* run(scaledTo(decoder(), image, Math.max(coverScale, atLeast)));
      return yield* frameCover(raster, { scale: raster.width / image.width, left: 0, top: 0 }, step, focus, faces, run);
    }
    const found = looking
      ? yield* Effect.flatMap(run(scaledTo(decoder(), image, detectionScale)), ({ raster }) =>
          facesIn(raster, { scale: raster.width / image.width, left: 0, top: 0 }, focus, detector),
        )
      : givenFaces(focus, faces);
    const placement = placeCropWindow(image, step, focus === "attention" ? "centre" : focus, found);
    const window = orCentre(image, step, placement);
    return {
      pipeline: decoder().extract(window.window).resize({ width: step.width, height: step.height, fit: "cover" }),
      readsUpload: true,
      framing: { crop: { ...window.window, by: window.by }, faces: found },
    };
  });
