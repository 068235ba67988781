import ort from "onnxruntime-node";
import sharp from "sharp";
import { TRYON_SETTING_VALUES, type TryOnSettings } from "../../domain/tryon-settings.ts";
import type { RenderedImage } from "../../ports/image.ts";
import type { Keypoint, Point, UnusableInputCode } from "../../ports/tryon-engine.ts";
import { decodeRaw, type RawImage } from "../imaging/raw-image.ts";
import { createSession } from "../onnx/onnx-session.ts";
import { loadSelfieSegmentation, type SelfieSegmentationModel } from "../segmentation/selfie-segmentation-model.ts";
import { buildCompositeGraph, PARAMS } from "./composite-graph.ts";
import { fitGarment } from "./garment-fit.ts";
import { detectGarment } from "./garment-mask.ts";
import { loadMoveNet, type PoseModel } from "./movenet-pose.ts";
import { checkPerson } from "./person-checks.ts";
import { buildWarpGraph } from "./warp-graph.ts";

/**
 * The try-on, stage by stage: segmentation and keypoints (checked for exactly one person), the
 * garment's mask and landmarks, a thin-plate-spline warp onto the torso, then shading,
 * compositing, background and lighting. Every stage that touches pixels in bulk is an ONNX
 * graph run by onnxruntime-node; sharp decodes, resizes and encodes.
 */
export type TryOnOutcome =
  | {
      readonly ok: true;
      readonly image: RenderedImage;
      readonly keypoints: ReadonlyArray<Keypoint>;
      readonly torso: ReadonlyArray<Point>;
    }
  | { readonly ok: false; readonly code: UnusableInputCode | "UNDECODABLE"; readonly field: "personImage" | "clothingImage"; readonly message: string };

export interface TryOnPipeline {
  readonly run: (person: Uint8Array, clothing: Uint8Array, settings: TryOnSettings) => Promise<TryOnOutcome>;
  /** Runs every model and graph once on tiny inputs, so the first request finds them warm. */
  readonly warmUp: () => Promise<void>;
}

/** The garment is analysed and warped from at most this size: finer than any torso needs. */
const GARMENT_MAX_SIDE = 640;
const JPEG_QUALITY = 95;
const LATTICE_STEP = 4;

/** gain R, G, B; contrast; lift; vignette. */
const LIGHTING: { readonly [K in TryOnSettings["lightingStyle"]]: readonly [number, number, number, number, number, number] } = {
  original: [1, 1, 1, 1, 0, 0],
  studio: [1.02, 1.02, 1.02, 0.9, 0.07, 0],
  warm: [1.08, 1.0, 0.84, 1, 0.01, 0],
  cool: [0.86, 0.98, 1.1, 1, 0.01, 0],
  dramatic: [1, 1, 1, 1.4, -0.04, 0.5],
};

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

const encode = async (rgb: Float32Array, alpha: Float32Array, width: number, height: number, settings: TryOnSettings): Promise<RenderedImage> => {
  const n = width * height;
  const transparent = settings.backgroundStyle === "transparent";
  const channels = transparent ? 4 : 3;
  const pixels = new Uint8Array(channels * n);
  for (let i = 0; i < n; i++) {
    for (let c = 0; c < 3; c++) pixels[channels * i + c] = Math.round(rgb[c * n + i]! * 255);
    if (transparent) pixels[4 * i + 3] = Math.round(Math.min(1, Math.max(0, alpha[i]!)) * 255);
  }
  const image = sharp(pixels, { raw: { width, height, channels } });
  const oriented = settings.poseStyle === "mirrored" ? image.flop() : image;
  const bytes = transparent ? await oriented.png().toBuffer() : await oriented.jpeg({ quality: JPEG_QUALITY, chromaSubsampling: "4:4:4" }).toBuffer();
  return {
    bytes: new Uint8Array(bytes.buffer, bytes.byteOffset, bytes.byteLength),
    format: transparent ? "png" : "jpeg",
    contentType: transparent ? "image/png" : "image/jpeg",
    width,
    height,
  };
};

const premultipliedGarment = (garment: RawImage, mask: Uint8Array): Float32Array => {
  const n = garment.width * garment.height;
  const out = new Float32Array(4 * n);
  for (let i = 0; i < n; i++) {
    const a = (mask[i]! / 255) * (garment.channels === 4 ? garment.data[4 * i + 3]! / 255 : 1);
    for (let c = 0; c < 3; c++) out[c * n + i] = (garment.data[garment.channels * i + c]! / 255) * a;
    out[3 * n + i] = a;
  }
  return out;
};

const f32 = (data: Float32Array, dims: ReadonlyArray<number>) => new ort.Tensor("float32", data, [...dims]);

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
      params: f32(Float32Array.from([1, 1, 1, 1, 0, 0, 0, 0]), [8]),
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
  const [personDecoded, clothingDecoded] = await Promise.all([decode(personBytes, "personImage", false), decode(clothingBytes, "clothingImage", true, GARMENT_MAX_SIDE)]);
  if (!personDecoded.ok) return personDecoded;
  if (!clothingDecoded.ok) return clothingDecoded;
  const person = personDecoded.image;
  const clothing = clothingDecoded.image;
  const probabilities = await stages.segmentation.probabilities(person);
  const check = await checkPerson(person, probabilities, stages.pose);
  if (!check.usable) return { ok: false, code: check.code, field: "personImage", message: check.message };
  const detection = detectGarment(clothing);
  if (!detection.found) return { ok: false, code: "NO_GARMENT_DETECTED", field: "clothingImage", message: detection.reason };

  const { width, height } = person;
  const { torso } = check;
  const fit = fitGarment(detection.garment, torso, settings.fitPreference, person);
  const { box } = fit;
  const boxWidth = Math.max(2, box.right - box.left);
  const boxHeight = Math.max(2, box.bottom - box.top);
  // The spline is evaluated every LATTICE_STEP pixels (corners included) and resized in the graph.
  const lattice = (from: number, count: number, origin: number) => {
    const steps = Math.ceil((count - 1) / LATTICE_STEP);
    return Float32Array.from({ length: steps + 1 }, (_, i) => (from + 0.5 + (i * (count - 1)) / steps - origin) / fit.scale);
  };
  const xs = lattice(box.left, boxWidth, fit.origin.x);
  const ys = lattice(box.top, boxHeight, fit.origin.y);

  const warped = await stages.warp.run({
    garment: f32(premultipliedGarment(clothing, detection.garment.mask), [1, 4, clothing.height, clothing.width]),
    xs: f32(xs, [xs.length]),
    ys: f32(ys, [ys.length]),
    size: new ort.Tensor("int64", BigInt64Array.from([1n, 2n, BigInt(boxHeight), BigInt(boxWidth)]), [4]),
    controls: f32(Float32Array.from(fit.backward.controls.flatMap((p) => [p.x, p.y])), [fit.backward.controls.length, 2]),
    weights: f32(Float32Array.from(fit.backward.weights.flat()), [fit.backward.weights.length, 2]),
    affine: f32(Float32Array.from(fit.backward.affine.flat()), [3, 2]),
    toGrid: f32(Float32Array.from([2 / clothing.width, 2 / clothing.height, -1, -1]), [2, 2]),
  });

  const personPlanar = planar(person);
  const background = await backgroundFor(settings.backgroundStyle, person, personPlanar);
  const [gainR, gainG, gainB, contrast, lift, vignette] = LIGHTING[settings.lightingStyle];
  const params = new Float32Array(8);
  params[PARAMS.gainR] = gainR;
  params[PARAMS.gainG] = gainG;
  params[PARAMS.gainB] = gainB;
  params[PARAMS.contrast] = contrast;
  params[PARAMS.lift] = lift;
  params[PARAMS.vignette] = vignette;
  params[PARAMS.backgroundMix] = settings.backgroundStyle === "original" || settings.backgroundStyle === "transparent" ? 0 : 1;
  params[PARAMS.shading] = SHADING[settings.realismLevel];
  const { face } = torso;
  const out = await stages.compositeFor(settings.realismLevel).run({
    person: f32(personPlanar, [1, 3, height, width]),
    mask: f32(probabilities.values, [1, 1, probabilities.height, probabilities.width]),
    background: f32(background, [1, 3, height, width]),
    warped: warped["warped"]!,
    pads: new ort.Tensor("int64", BigInt64Array.from([0, 0, box.top, box.left, 0, 0, height - box.bottom, width - box.right].map(BigInt)), [8]),
    xs: f32(Float32Array.from({ length: width }, (_, i) => i + 0.5), [width]),
    ys: f32(Float32Array.from({ length: height }, (_, i) => i + 0.5), [height]),
    nx: f32(Float32Array.from({ length: width }, (_, i) => (2 * (i + 0.5)) / width - 1), [width]),
    ny: f32(Float32Array.from({ length: height }, (_, i) => (2 * (i + 0.5)) / height - 1), [height]),
    face: f32(Float32Array.from([face.cx, face.cy, face.rx, face.ry]), [4]),
    params: f32(params, [8]),
  });
  const image = await encode(out["rgb"]!.data as Float32Array, out["alpha"]!.data as Float32Array, width, height, settings);
  return { ok: true, image, keypoints: check.keypoints, torso: torso.quad };
};
