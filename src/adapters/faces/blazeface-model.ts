import ort from "onnxruntime-node";
import sharp from "sharp";
import type { Face } from "../../domain/crop-window.ts";
import type { FacePixels } from "../../ports/face-detector.ts";
import { BLAZEFACE_BIN, BLAZEFACE_JSON, readPackagedModelFile } from "../models/packaged-models.ts";
import { createSession } from "../onnx/onnx-session.ts";
import { readTfjsGraphModel, type TfjsConstant } from "../onnx/tfjs-graph-model.ts";
import { tfjsGraphToOnnx } from "../onnx/tfjs-graph-to-onnx.ts";
import { BLAZEFACE_GRIDS, COARSE_SIDE, decodeGrid, FINE_SIDE, suppressOverlaps } from "./blazeface-decoding.ts";

/**
 * MediaPipe BlazeFace (back-camera variant) on onnxruntime-node, run at two scales of the photo
 * (FINE_SIDE, COARSE_SIDE). The model is fully convolutional: converted with a free input size,
 * one run over the whole photo does what tiling it into 256-pixel squares would, without seams.
 */
const MIN_SCORE = 0.75;
const MAX_IOU = 0.3;
const GRID = 32;

export interface BlazeFaceModel {
  /** Faces in the image's pixels. Pixels larger than the fine scale are shrunk first. */
  readonly detect: (image: FacePixels) => Promise<ReadonlyArray<Face>>;
}

/** The tfjs graph reshapes its outputs to 256×256's anchor counts; -1 lets them follow the input. */
const freeAnchorCounts = (constants: ReadonlyMap<string, TfjsConstant>): ReadonlyMap<string, TfjsConstant> =>
  new Map(
    [...constants].map(([name, c]) =>
      name.endsWith("/shape") && c.data.length === 3 ? [name, { shape: c.shape, data: Int32Array.from([1, -1, c.data[2] ?? 1]) }] : [name, c],
    ),
  );

const rgb = (image: FacePixels) =>
  sharp(image.data, { raw: { width: image.width, height: image.height, channels: image.channels } })
    .removeAlpha()
    .toColourspace("srgb");

export const loadBlazeFace = async (threads: number): Promise<BlazeFaceModel> => {
  const [json, bin] = await Promise.all([readPackagedModelFile(BLAZEFACE_JSON), readPackagedModelFile(BLAZEFACE_BIN)]);
  const graph = readTfjsGraphModel(new TextDecoder().decode(json), [bin]);
  const onnx = tfjsGraphToOnnx(
    { nodes: graph.nodes, constants: freeAnchorCounts(graph.constants) },
    { name: "input", type: "float32", dims: [1, "height", "width", 3] },
    ["Identity", "Identity_1", "Identity_2", "Identity_3"],
  );
  const session = await createSession(onnx, threads);

  /** One run with the image scaled by `scale`, padded to the grid; faces in the image's pixels. */
  const run = async (image: FacePixels, scale: number): Promise<ReadonlyArray<Face>> => {
    const width = Math.max(1, Math.round(image.width * scale));
    const height = Math.max(1, Math.round(image.height * scale));
    const paddedWidth = Math.ceil(width / GRID) * GRID;
    const paddedHeight = Math.ceil(height / GRID) * GRID;
    const pixels = await rgb(image)
      .resize(width, height, { fit: "fill" })
      .extend({ right: paddedWidth - width, bottom: paddedHeight - height, background: { r: 0, g: 0, b: 0 } })
      .raw()
      .toBuffer();
    const input = new Float32Array(pixels.length);
    for (let i = 0; i < pixels.length; i++) input[i] = pixels[i]! / 127.5 - 1;
    const out = await session.run({ input: new ort.Tensor("float32", input, [1, paddedHeight, paddedWidth, 3]) });
    const tensor = (k: number) => out[`output${k}`]?.data as Float32Array;
    return BLAZEFACE_GRIDS.flatMap((grid, k) => decodeGrid({ ...grid, scores: tensor(k), regressors: tensor(k + 2) }, paddedWidth, MIN_SCORE, scale));
  };

  return {
    detect: async (image) => {
      const fine = Math.min(1, FINE_SIDE / Math.min(image.width, image.height));
      const coarse = COARSE_SIDE / Math.max(image.width, image.height);
      const found = [...(await run(image, fine)), ...(coarse < fine * 0.75 ? await run(image, coarse) : [])];
      return suppressOverlaps(found, MAX_IOU);
    },
  };
};
