import ort from "onnxruntime-node";
import { TRYON_SETTING_VALUES, type TryOnSettings } from "../../domain/tryon-settings.ts";
import type { RawImage } from "../image/raw-decoding.ts";
import { createSession } from "../onnx/onnx-session.ts";
import { type HairSegmentationModel, loadHairSegmentation } from "../segmentation/hair-segmentation-model.ts";
import { loadSelfieSegmentation, type SelfieSegmentationModel } from "../segmentation/selfie-segmentation-model.ts";
import { buildCompositeGraph } from "./composite-graph.ts";
import { buildWarpGraph } from "./garment/warp-graph.ts";
import { loadMoveNet, type PoseModel } from "./movenet-pose.ts";
import { f32, planar } from "./planar-tensors.ts";

/** The models and graphs a try-on runs: segmentation, hair, pose, the part warp, one composite per realism level. */
export interface TryOnModels {
  readonly segmentation: SelfieSegmentationModel;
  readonly hair: HairSegmentationModel;
  readonly pose: PoseModel;
  readonly warp: ort.InferenceSession;
  readonly compositeFor: (level: TryOnSettings["realismLevel"]) => ort.InferenceSession;
}

export const loadTryOnModels = async (threads: number): Promise<TryOnModels> => {
  const [segmentation, hair, pose, warp, ...composites] = await Promise.all([
    loadSelfieSegmentation(threads),
    loadHairSegmentation(threads),
    loadMoveNet(threads),
    createSession(buildWarpGraph(), threads),
    ...TRYON_SETTING_VALUES.realismLevel.map((level) => createSession(buildCompositeGraph(level), threads)),
  ]);
  const compositeFor = (level: TryOnSettings["realismLevel"]) => composites[TRYON_SETTING_VALUES.realismLevel.indexOf(level)]!;
  return { segmentation, hair, pose, warp, compositeFor };
};

/** Runs every model and graph once on tiny inputs, so the first request finds them warm. */
export const warmUpTryOnModels = async (models: TryOnModels): Promise<void> => {
  const image: RawImage = { data: new Uint8Array(32 * 32 * 3).fill(128), width: 32, height: 32, channels: 3 };
  const map = await models.segmentation.probabilities(image);
  const hair = await models.hair.probabilities(image);
  await models.pose.keypoints(image);
  const warped = await models.warp.run({
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
    await models.compositeFor(level).run({
      person: f32(plane, [1, 3, 32, 32]),
      mask: f32(map.values, [1, 1, map.height, map.width]),
      front: f32(hair.values, [1, 1, hair.height, hair.width]),
      background: f32(plane, [1, 3, 32, 32]),
      warped: warped["warped"]!,
      pads: new ort.Tensor("int64", BigInt64Array.from([0n, 0n, 0n, 0n, 0n, 0n, 24n, 24n]), [8]),
      xs: f32(new Float32Array(32), [32]),
      ys: f32(new Float32Array(32), [32]),
      nx: f32(new Float32Array(32), [32]),
      ny: f32(new Float32Array(32), [32]),
      face: f32(Float32Array.from([0, 0, 1, 1]), [4]),
      params: f32(Float32Array.from([1, 1, 0, 1]), [4]),
      kernel: f32(Float32Array.from([0.25, 0.5, 0.25]), [3]),
    });
  }
};
