import ort from "onnxruntime-node";
import type { TryOnSettings } from "../../domain/tryon-settings.ts";
import type { RenderedImage } from "../../ports/engines/image.ts";
import type { GarmentKind, Keypoint, Point, UnusableInputCode } from "../../ports/engines/tryon-engine.ts";
import { decodeRaw } from "../image/raw-decoding.ts";
import { paintArmSkin } from "./arm-skin.ts";
import { armCapsules, type Capsule, locateArms } from "./arms.ts";
import { backgroundFor } from "./backdrop-planes.ts";
import { BROAD_SHADING, shadingKernel } from "./broad-shading.ts";
import { PARAMS } from "./composite-graph.ts";
import { faceSkin } from "./face-skin.ts";
import { compositeFullSize, displayedSize, LIGHTING } from "./full-size-composite.ts";
import { type Box, boxAround, fitPanel, fitSleeve, type PartFit } from "./garment/garment-fit.ts";
import { detectGarment } from "./garment/garment-mask.ts";
import { analyseGarment, PART, type UnplaceableKind } from "./garment/garment-parts.ts";
import { layParts, type WarpedPart } from "./garment/part-layers.ts";
import { warpPart } from "./garment/part-warp.ts";
import { hairInFront } from "./hair-in-front.ts";
import { handsInFront } from "./hands-in-front.ts";
import { paintNeckSkin } from "./neck-skin.ts";
import { judgeParse, parseSignals } from "./parse-signals.ts";
import { checkPerson } from "./person-checks.ts";
import { f32, planar } from "./planar-tensors.ts";
import { outlineShoulders } from "./shoulder-outline.ts";
import { torsoCoverage } from "./torso-coverage.ts";
import { loadTryOnModels, type TryOnModels, warmUpTryOnModels } from "./tryon-models.ts";

/**
 * The try-on, stage by stage: segmentation and keypoints (checked for exactly one person), the
 * hair over the torso (kept in front of the garment), the garment's mask, kind and parts, a thin-plate-spline warp of each part (the torso panel onto the
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
      readonly confidence: number;
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

const ARTICLE: { readonly [K in UnplaceableKind]: string } = { trousers: "trousers", skirt: "a skirt", dress: "a dress" };

export const loadTryOnPipeline = async (threads: number): Promise<TryOnPipeline> => {
  const models = await loadTryOnModels(threads);
  return { run: (person, clothing, settings) => runTryOn(models, person, clothing, settings), warmUp: () => warmUpTryOnModels(models) };
};

/** Decodes a client image, reporting which field failed instead of throwing. */
const decode = (bytes: Uint8Array, field: "personImage" | "clothingImage", alpha: boolean, maxSide?: number) =>
  decodeRaw(bytes, alpha, maxSide).then(
    (image) => ({ ok: true as const, image }),
    () => ({ ok: false as const, code: "UNDECODABLE" as const, field, message: `${field} cannot be decoded` }),
  );

const runTryOn = async (models: TryOnModels, personBytes: Uint8Array, clothingBytes: Uint8Array, settings: TryOnSettings): Promise<TryOnOutcome> => {
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
  const probabilities = await models.segmentation.probabilities(person);
  const check = await checkPerson(person, probabilities, models.pose);
  if (!check.usable) return { ok: false, code: check.code, field: "personImage", message: check.message };
  const judgement = judgeParse(parseSignals(check.keypoints, check.torso, probabilities, person));
  if (!judgement.sure) return { ok: false, code: judgement.code, field: "personImage", message: judgement.message };
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
  const hair = await models.hair.probabilities(person);
  const hairFront = hairInFront(hair, person, torso.quad, torso.shoulderWidth);
  const skin = faceSkin(hair, person, torso.face);
  const hands = handsInFront(hair, person, check.keypoints, torso, skin?.range);
  const front = { ...hairFront, values: hairFront.values.map((v, i) => Math.max(v, hands.values[i]!)) };
  const arms = locateArms(check.keypoints, torso);
  const capsules = arms.map((arm) => armCapsules(arm, torso));
  const armParts = capsules.flatMap((c) => [c.upper, c.forearm, c.hand].filter((p) => p !== undefined));
  // The garment's torso: the shoulders on the person's own outline (reported, and its coverage measured, on it).
  const outlined = outlineShoulders(torso, { person: probabilities, hair }, person);
  const panel = fitPanel(detection.garment, parts.torsoBounds, outlined, settings.fitPreference, person);
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
    warped.push({ data: await warpPart(models.warp, clothing, parts.labels, part.label, part.bounds, part.fit), box, behind: part.behind });
  }
  const laid = warped.length > 0 ? layParts(warped) : { data: new Float32Array(4 * 4), box: { left: 0, top: 0, right: 2, bottom: 2 } };
  const { box } = laid;

  const personPlanar = planar(person);
  const background = await backgroundFor(settings.backgroundStyle, person, personPlanar);
  const params = new Float32Array(4);
  params[PARAMS.backgroundMix] = settings.backgroundStyle === "original" || settings.backgroundStyle === "transparent" ? 0 : 1;
  params[PARAMS.shading] = BROAD_SHADING[settings.realismLevel].strength;
  params[PARAMS.vignette] = LIGHTING[settings.lightingStyle][5];
  params[PARAMS.spillClip] = settings.fitPreference === "loose" ? 0 : 1;
  const { face } = torso;
  const kernel = shadingKernel(settings.realismLevel, torso.shoulderWidth);
  const out = await models.compositeFor(settings.realismLevel).run({
    person: f32(personPlanar, [1, 3, height, width]),
    mask: f32(probabilities.values, [1, 1, probabilities.height, probabilities.width]),
    front: f32(front.values, [1, 1, front.height, front.width]),
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
    kernel: f32(kernel, [kernel.length]),
  });
  const layer = (name: string) => out[name]!.data as Uint8Array;
  const garment = { rgba: layer("garment"), width, height };
  // Coverage is the garment's own: measured before skin is painted into its layer where old clothes showed.
  const coverage = torsoCoverage(garment, outlined.quad, probabilities, armParts, face, front);
  const neck = skin && paintNeckSkin(garment, person, { person: probabilities, front }, torso, skin);
  const sleeves = skin && paintArmSkin(garment, person, { person: probabilities, hair, front }, arms, torso, skin);
  const painted = boxAround([box, neck, sleeves])!;
  const layers = {
    width,
    height,
    garment: garment.rgba,
    backdrop: layer("backdrop"),
    foreground: layer("foreground"),
    vignette: layer("vignette"),
    box: painted,
  };
  const image = await compositeFullSize(personBytes, full, layers, settings);
  // Detections are reported in the full-size photo's pixels.
  const sx = full.width / width;
  const sy = full.height / height;
  const toFull = <P extends Point>(p: P): P => ({ ...p, x: p.x * sx, y: p.y * sy });
  return {
    ok: true,
    image,
    keypoints: check.keypoints.map(toFull),
    torso: outlined.quad.map(toFull),
    garment: parts.kind,
    coverage,
    confidence: judgement.confidence,
  };
};
