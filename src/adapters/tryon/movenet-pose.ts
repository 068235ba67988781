import ort from "onnxruntime-node";
import sharp from "sharp";
import type { Keypoint } from "../../ports/engines/tryon-engine.ts";
import type { RawImage } from "../image/raw-decoding.ts";
import { MOVENET_LIGHTNING_BIN, MOVENET_LIGHTNING_JSON, readPackagedModelFile } from "../models/packaged-models.ts";
import { createSession, runSingle } from "../onnx/onnx-session.ts";
import { readTfjsGraphModel } from "../onnx/tfjs-graph-model.ts";
import { tfjsGraphToOnnx } from "../onnx/tfjs-graph-to-onnx.ts";

/** MoveNet SinglePose Lightning: 17 COCO keypoints from a 192×192 RGB (int32 0-255) input. */
const INPUT = 192;

const KEYPOINT_NAMES = [
  "nose",
  "left_eye",
  "right_eye",
  "left_ear",
  "right_ear",
  "left_shoulder",
  "right_shoulder",
  "left_elbow",
  "right_elbow",
  "left_wrist",
  "right_wrist",
  "left_hip",
  "right_hip",
  "left_knee",
  "right_knee",
  "left_ankle",
  "right_ankle",
] as const;

export interface Region {
  readonly left: number;
  readonly top: number;
  readonly width: number;
  readonly height: number;
}

export interface PoseModel {
  /** Keypoints in image pixels; `region` limits the search to a crop (e.g. one person's blob). */
  readonly keypoints: (image: RawImage, region?: Region) => Promise<ReadonlyArray<Keypoint>>;
}

export const loadMoveNet = async (threads: number): Promise<PoseModel> => {
  const [json, bin] = await Promise.all([readPackagedModelFile(MOVENET_LIGHTNING_JSON), readPackagedModelFile(MOVENET_LIGHTNING_BIN)]);
  const graph = readTfjsGraphModel(new TextDecoder().decode(json), [bin]);
  const session = await createSession(tfjsGraphToOnnx(graph, { name: "input", type: "int32", dims: [1, INPUT, INPUT, 3] }, "Identity"), threads);
  return {
    keypoints: async (image, region = { left: 0, top: 0, width: image.width, height: image.height }) => {
      // Letterboxed: the crop keeps its aspect ratio, centred on black, as MoveNet was trained.
      const side = Math.max(region.width, region.height);
      const scale = side / INPUT;
      const padX = (side - region.width) / 2;
      const padY = (side - region.height) / 2;
      const square = await sharp(image.data, { raw: { width: image.width, height: image.height, channels: image.channels } })
        .extract(region)
        .removeAlpha()
        .resize(INPUT, INPUT, { fit: "contain", background: { r: 0, g: 0, b: 0 }, kernel: "linear" })
        .raw()
        .toBuffer();
      const out = await runSingle(session, { input: new ort.Tensor("int32", Int32Array.from(square), [1, INPUT, INPUT, 3]) });
      const d = out.data as Float32Array;
      return KEYPOINT_NAMES.map((name, i) => ({
        name,
        y: region.top + d[3 * i]! * INPUT * scale - padY,
        x: region.left + d[3 * i + 1]! * INPUT * scale - padX,
        score: d[3 * i + 2]!,
      }));
    },
  };
};
