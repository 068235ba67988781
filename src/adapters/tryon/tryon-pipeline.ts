import ort from "onnxruntime-node";
import sharp from "sharp";
import { TRYON_SETTING_VALUES, type TryOnSettings } from "../../domain/tryon-settings.ts";
import type { RenderedImage } from "../../ports/image.ts";
import type { GarmentKind, Keypoint, Point, UnusableInputCode } from "../../ports/tryon-engine.ts";
import { decodeRaw, type RawImage } from "../image/raw-decoding.ts";
import { createSession } from "../onnx/onnx-session.ts";
import { loadSelfieSegmentation, type SelfieSegmentationModel } from "../segmentation/selfie-segmentation-model.ts";
import { armCapsules, type Capsule, locateArms } from "./arms.ts";
import { buildCompositeGraph, PARAMS } from "./composite-graph.ts";
import { compositeFullSize, displayedSize, LIGHTING } from "./full-size-composite.ts";
import { type Box, fitPanel, fitSleeve, type PartFit } from "./garment-fit.ts";
import { detectGarment } from "./garment-mask.ts";
import { analyseGarment, PART, type UnplaceableKind } from "./garment-parts.ts";
import { loadMoveNet, type PoseModel } from "./movenet-pose.ts";
import { layParts, type WarpedPart } from "./part-layers.ts";
import { checkPerson } from "./person-checks.ts";
import { torsoCoverage } from "./torso-coverage.ts";
import { buildWarpGraph } from "./warp-graph.ts";

/**
 * The try-on, stage by stage: segmentation and keypoints (checked for exactly one person), the
 * garment's mask, kind and parts, a thin-plate-spline warp of each part (the torso panel onto the
 * torso, each sleeve along its arm), the parts laid together behind the arms in front, shading and
 * the composite's layers, all at the working resolution (WORKING_MAX_SIDE), so their cost does not
 * grow with the photo; then libvips lays the layers over the full-size photo. All of it runs in the
 * try-on thread: the warps and the composite are ONNX graphs run by onnxruntime-node, the full-size
 * composite a libvips pipeline, and the per-pixel loops here touch only the garment's own pixels
 * and boxes at the working resolution.
 */
export type TryOnOutcome =
  | {
      readonly ok: true;
      readonly image: RenderedImage;
      readonly keypoints: ReadonlyArray<Keypoint>;
      readonly torso: ReadonlyArray<Point>;
      readonly garment: GarmentKind;
      readonly coverage: number;
    }
  | { readonly ok: false; readonly code: UnusableInputCode | "UNDECODABLE"; readonly field: "personImage" | "clothingImage"; readonly message: string };

export interface TryOnPipeline {
  readonly run: (person: Uint8Array, clothing: Uint8Array, settings: TryOnSettings) => Promise<TryOnOutcome>;
  /** Runs every model and graph once on tiny inputs, so the first request finds them warm. */
  readonly warmUp: () => Promise<void>;
}

/** The garment is analysed and warped from at most this size: finer than any torso needs. */
const GARMENT_MAX_SIDE = 640;
/**
 * The person photo is analysed, and the garment laid out, at most at this size: the models work
 * at 192-256 px, so finer adds cost, not accuracy. The full-size result is composed by libvips.
 */
export const WORKING_MAX_SIDE = 1024;
const LATTICE_STEP = 4;

const SHADING: { readonly [K in TryOnSettings["realismLevel"]]: number } = { draft: 0, standard: 0.8, high: 1 };

const planar = (image: RawImage): Float32Array => {
  const n = image.width * image.height;
  const out = new Float32Array(3 * n);
  for (let i = 0; i < n; i++) for (let c = 0; c < 3; c++) out[c * n + i] = image.data[image.channels * i + c]! / 255;
  return out;
};

const backgroundFor = async (style: TryOnSettings["backgroundStyle"], person: RawImage, personPlanar: Float32Array): Promise<Float32Array> => {
  const { width, height } = person;
  const n = width * height;
  switch (style) {
    case "white":
      return new Float32Array(3 * n).fill(1);
    case "studio": {
      // A grey backdrop, lighter behind the head, darker toward the floor.
      const out = new Float32Array(3 * n);
      for (let y = 0; y < height; y++)
        for (let x = 0; x < width; x++) {
          const dx = (x - width / 2) / width;
          const v = 0.93 - 0.15 * (y / height) - 0.1 * dx * dx;
          out[y * width + x] = v;
          out[n + y * width + x] = v;
          out[2 * n + y * width + x] = v * 1.01;
        }
      return out;
    }
    case "blur": {
      const blurred = await sharp(person.data, { raw: { width, height, channels: person.channels } })
        .blur(Math.max(2, 0.02 * Math.max(width, height)))
        .raw()
        .toBuffer();
      return planar({ ...person, data: new Uint8Array(blurred.buffer, blurred.byteOffset, blurred.byteLength) });
    }
    case "original":
    case "transparent":
      return personPlanar;
  }
};

const f32 = (data: Float32Array, dims: ReadonlyArray<number>) => new ort.Tensor("float32", data, [...dims]);

const ARTICLE: { readonly [K in UnplaceableKind]: string } = { trousers: "trousers", skirt: "a skirt", dress: "a dress" };

/**
 * One part of the garment, warped into its box: the part's pixels (premultiplied RGBA, planar,
 * cropped to the part) are sampled where its spline, evaluated every LATTICE_STEP pixels (corners
 * included) and resized in the graph, says.
 */
const warpPart = async (
  warp: ort.InferenceSession,
  clothing: RawImage,
  labels: Uint8Array,
  label: number,
  bounds: Box,
  fit: PartFit,
): Promise<Float32Array> => {
  const left = Math.max(0, bounds.left - 1);
  const top = Math.max(0, bounds.top - 1);
  const cw = Math.min(clothing.width, bounds.right + 1) - left;
  const ch = Math.min(clothing.height, bounds.bottom + 1) - top;
  const n = cw * ch;
  const garment = new Float32Array(4 * n);
  const { data, channels } = clothing;
  for (let y = 0; y < ch; y++)
    for (let x = 0; x < cw; x++) {
      const s = (y + top) * clothing.width + x + left;
      if (labels[s] !== label) continue;
      const i = y * cw + x;
      const a = channels === 4 ? data[4 * s + 3]! / 255 : 1;
      for (let c = 0; c < 3; c++) garment[c * n + i] = (data[channels * s + c]! / 255) * a;
      garment[3 * n + i] = a;
    }
  const { box } = fit;
  const boxWidth = box.right - box.left;
  const boxHeight = box.bottom - box.top;
  const lattice = (from: number, count: number, origin: number) => {
    const steps = Math.ceil((count - 1) / LATTICE_STEP);
    return Float32Array.from({ length: steps + 1 }, (_, i) => (from + 0.5 + (i * (count - 1)) / steps - origin) / fit.scale);
  };
  const xs = lattice(box.left, boxWidth, fit.origin.x);
  const ys = lattice(box.top, boxHeight, fit.origin.y);
  const out = await warp.run({
    garment: f32(garment, [1, 4, ch, cw]),
    xs: f32(xs, [xs.length]),
    ys: f32(ys, [ys.length]),
    size: new ort.Tensor("int64", BigInt64Array.from([1n, 2n, BigInt(boxHeight), BigInt(boxWidth)]), [4]),
    controls: f32(Float32Array.from(fit.backward.controls.flatMap((p) => [p.x, p.y])), [fit.backward.controls.length, 2]),
    weights: f32(Float32Array.from(fit.backward.weights.flat()), [fit.backward.weights.length, 2]),
    affine: f32(Float32Array.from(fit.backward.affine.flat()), [3, 2]),
    // Garment pixels → GridSample's [-1, 1] over the crop.
    toGrid: f32(Float32Array.from([2 / cw, 2 / ch, -1 - (2 * left) / cw, -1 - (2 * top) / ch]), [2, 2]),
  });
  return out["warped"]!.data as Float32Array;
};

export const loadTryOnPipeline = async (threads: number): Promise<TryOnPipeline> => {
  const [segmentation, pose, warp, ...composites] = await Promise.all([
    loadSelfieSegmentation(threads),
    loadMoveNet(threads),
    createSession(buildWarpGraph(), threads),
    ...TRYON_SETTING_VALUES.realismLevel.map((level) => createSession(buildCompositeGraph(level), threads)),
  ]);
  const compositeFor = (level: TryOnSettings["realismLevel"]) => composites[TRYON_SETTING_VALUES.realismLevel.indexOf(level)]!;
  const stages = { segmentation, pose, warp, compositeFor };
  return { run: (person, clothing, settings) => runTryOn(stages, person, clothing, settings), warmUp: () => warmUp(stages) };
};

const warmUp = async (stages: Stages): Promise<void> => {
  const image: RawImage = { data: new Uint8Array(32 * 32 * 3).fill(128), width: 32, height: 32, channels: 3 };
  const map = await stages.segmentation.probabilities(image);
  await stages.pose.keypoints(image);
  const warped = await stages.warp.run({
    garment: f32(new Float32Array(4 * 8 * 8), [1, 4, 8, 8]),
    xs: f32(Float32Array.from([0, 1]), [2]),
    ys: f32(Float32Array.from([0, 1]), [2]),
    controls: f32(Float32Array.from([0, 0, 1, 0, 0, 1]), [3, 2]),
    weights: f32(new Float32Array(6), [3, 2]),
    affine: f32(Float32Array.from([0, 0, 1, 0, 0, 1]), [3, 2]),
    toGrid: f32(Float32Array.from([0.25, 0.25, -1, -1]), [2, 2]),
    size: new ort.Tensor("int64", BigInt64Array.from([1n, 2n, 8n, 8n]), [4]),
  });
  const plane = planar(image);
  for (const level of TRYON_SETTING_VALUES.realismLevel) {
    await stages.compositeFor(level).run({
      person: f32(plane, [1, 3, 32, 32]),
      mask: f32(map.values, [1, 1, map.height, map.width]),
      background: f32(plane, [1, 3, 32, 32]),
      warped: warped["warped"]!,
      pads: new ort.Tensor("int64", BigInt64Array.from([0n, 0n, 0n, 0n, 0n, 0n, 24n, 24n]), [8]),
      xs: f32(new Float32Array(32), [32]),
      ys: f32(new Float32Array(32), [32]),
      nx: f32(new Float32Array(32), [32]),
      ny: f32(new Float32Array(32), [32]),
      face: f32(Float32Array.from([0, 0, 1, 1]), [4]),
      params: f32(Float32Array.from([1, 1, 0, 1]), [4]),
    });
  }
};

/** Decodes a client image, reporting which field failed instead of throwing. */
const decode = (bytes: Uint8Array, field: "personImage" | "clothingImage", alpha: boolean, maxSide?: number) =>
  decodeRaw(bytes, alpha, maxSide).then(
    (image) => ({ ok: true as const, image }),
    () => ({ ok: false as const, code: "UNDECODABLE" as const, field, message: `${field} cannot be decoded` }),
  );

interface Stages {
  readonly segmentation: SelfieSegmentationModel;
  readonly pose: PoseModel;
  readonly warp: ort.InferenceSession;
  readonly compositeFor: (level: TryOnSettings["realismLevel"]) => ort.InferenceSession;
}

const runTryOn = async (stages: Stages, personBytes: Uint8Array, clothingBytes: Uint8Array, settings: TryOnSettings): Promise<TryOnOutcome> => {
  const [personDecoded, clothingDecoded, full] = await Promise.all([
    decode(personBytes, "personImage", false, WORKING_MAX_SIDE),
    decode(clothingBytes, "clothingImage", true, GARMENT_MAX_SIDE),
    displayedSize(personBytes).catch(() => undefined),
  ]);
  if (!personDecoded.ok) return personDecoded;
  if (full === undefined) return { ok: false, code: "UNDECODABLE", field: "personImage", message: "personImage cannot be decoded" };
  if (!clothingDecoded.ok) return clothingDecoded;
  const person = personDecoded.image;
  const clothing = clothingDecoded.image;
  const probabilities = await stages.segmentation.probabilities(person);
  const check = await checkPerson(person, probabilities, stages.pose);
  if (!check.usable) return { ok: false, code: check.code, field: "personImage", message: check.message };
  const detection = detectGarment(clothing);
  if (!detection.found) return { ok: false, code: "NO_GARMENT_DETECTED", field: "clothingImage", message: detection.reason };

  const analysis = analyseGarment(detection.garment);
  if (!analysis.placeable) {
    const message = `the clothing image shows ${ARTICLE[analysis.kind]}; the engine places tops only (T-shirts, shirts, sleeveless tops)`;
    return { ok: false, code: "UNSUPPORTED_GARMENT", field: "clothingImage", message };
  }
  const { parts } = analysis;

  const { width, height } = person;
  const { torso } = check;
  const arms = locateArms(check.keypoints, torso);
  const capsules = arms.map((arm) => armCapsules(arm, torso));
  const armParts = capsules.flatMap((c) => [c.upper, c.forearm, c.hand].filter((p) => p !== undefined));
  const panel = fitPanel(detection.garment, parts.torsoBounds, torso, settings.fitPreference, person);
  // The panel first, the sleeves over it, as arms lie over the body's sides. The panel goes behind
  // every arm part in front of the torso; a sleeve behind forearms and hands, but its own forearm
  // when it reaches down it.
  const layout: Array<{ readonly label: number; readonly bounds: Box; readonly fit: PartFit; readonly behind: ReadonlyArray<Capsule> }> = [
    { label: PART.torso, bounds: parts.torsoBounds, fit: panel, behind: armParts },
  ];
  for (const sleeve of parts.sleeves) {
    const arm = arms[sleeve.side === "left" ? 0 : 1];
    const fit = fitSleeve(sleeve, panel, arm, torso, person);
    const behind = capsules.flatMap((c, i) => [i === arms.indexOf(arm) && fit.coversForearm ? undefined : c.forearm, c.hand].filter((p) => p !== undefined));
    layout.push({ label: sleeve.label, bounds: sleeve.bounds, fit, behind });
  }
  const warped: Array<WarpedPart> = [];
  for (const part of layout) {
    const { box } = part.fit;
    // A part that lands (almost) wholly outside the photo is left out.
    if (box.right - box.left < 2 || box.bottom - box.top < 2) continue;
    warped.push({ data: await warpPart(stages.warp, clothing, parts.labels, part.label, part.bounds, part.fit), box, behind: part.behind });
  }
  const laid = warped.length > 0 ? layParts(warped) : { data: new Float32Array(4 * 4), box: { left: 0, top: 0, right: 2, bottom: 2 } };
  const { box } = laid;

  const personPlanar = planar(person);
  const background = await backgroundFor(settings.backgroundStyle, person, personPlanar);
  const params = new Float32Array(4);
  params[PARAMS.backgroundMix] = settings.backgroundStyle === "original" || settings.backgroundStyle === "transparent" ? 0 : 1;
  params[PARAMS.shading] = SHADING[settings.realismLevel];
  params[PARAMS.vignette] = LIGHTING[settings.lightingStyle][5];
  params[PARAMS.spillClip] = settings.fitPreference === "loose" ? 0 : 1;
  const { face } = torso;
  const out = await stages.compositeFor(settings.realismLevel).run({
    person: f32(personPlanar, [1, 3, height, width]),
    mask: f32(probabilities.values, [1, 1, probabilities.height, probabilities.width]),
    background: f32(background, [1, 3, height, width]),
    warped: f32(laid.data, [1, 4, box.bottom - box.top, box.right - box.left]),
    pads: new ort.Tensor("int64", BigInt64Array.from([0, 0, box.top, box.left, 0, 0, height - box.bottom, width - box.right].map(BigInt)), [8]),
    xs: f32(
      Float32Array.from({ length: width }, (_, i) => i + 0.5),
      [width],
    ),
    ys: f32(
      Float32Array.from({ length: height }, (_, i) => i + 0.5),
      [height],
    ),
    nx: f32(
      Float32Array.from({ length: width }, (_, i) => (2 * (i + 0.5)) / width - 1),
      [width],
    ),
    ny: f32(
      Float32Array.from({ length: height }, (_, i) => (2 * (i + 0.5)) / height - 1),
      [height],
    ),
    face: f32(Float32Array.from([face.cx, face.cy, face.rx, face.ry]), [4]),
    params: f32(params, [4]),
  });
  const layer = (name: string) => out[name]!.data as Uint8Array;
  const layers = { width, height, garment: layer("garment"), backdrop: layer("backdrop"), foreground: layer("foreground"), vignette: layer("vignette"), box };
  const coverage = torsoCoverage({ rgba: layers.garment, width, height }, torso.quad, probabilities, armParts, face);
  const image = await compositeFullSize(personBytes, full, layers, settings);
  // Detections are reported in the full-size photo's pixels.
  const sx = full.width / width;
  const sy = full.height / height;
  const toFull = <P extends Point>(p: P): P => ({ ...p, x: p.x * sx, y: p.y * sy });
  return { ok: true, image, keypoints: check.keypoints.map(toFull), torso: torso.quad.map(toFull), garment: parts.kind, coverage };
};
