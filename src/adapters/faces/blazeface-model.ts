import ort from "onnxruntime-node";
import sharp from "sharp";
import type { Face, Size } from "../../domain/crop-window.ts";
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
 * Cost (one core, at the median, loaded AVX-512 machine, onnxruntime 1.30): a 576×384 run
 * ~17 ms, 384×384 ~11 ms (a 768×512 run at the former fine side ~35-40 ms), the 256-pixel run
 * ~6 ms; the fine run is most of what detection adds to a crop (README, Benchmarks).
 */
const MIN_SCORE = 0.75;
const MAX_IOU = 0.3;

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

/**
 * A canvas as the model reads it: RGB planes (channels first, as its convolutions want them)
 * scaled to [-1, 1] (grey repeated, alpha dropped), the pixels at its top left, the rest black.
 * Written straight from the pixels: a libvips pipeline to pad and convert them cost more CPU than
 * this loop.
 */
const toCanvas = (pixels: Uint8Array, { width, height }: Size, channels: number, [canvasWidth, canvasHeight]: readonly [number, number]): Float32Array => {
  const plane = canvasWidth * canvasHeight;
  const input = new Float32Array(3 * plane).fill(-1);
  const [green, blue] = channels >= 3 ? [1, 2] : [0, 0];
  for (let y = 0; y < height; y++) {
    for (let x = 0, from = y * width * channels, to = y * canvasWidth; x < width; x++, from += channels, to++) {
      input[to] = pixels[from]! / 127.5 - 1;
      input[plane + to] = pixels[from + green]! / 127.5 - 1;
      input[2 * plane + to] = pixels[from + blue]! / 127.5 - 1;
    }
  }
  return input;
};

/**
 * onnxruntime plans a graph of fixed input size once (a third less CPU per run than a free size),
 * so each scale pads the photo onto one of a few canvases, each with its session: the shorter side
 * at FINE_SIDE and the longer side at the next of FINE_LONG_SIDES (a panorama beyond the last is
 * scaled to fit it), or a COARSE_SIDE square.
 */
const FINE_LONG_SIDES = [FINE_SIDE, 1.5 * FINE_SIDE, 2 * FINE_SIDE] as const;
const CANVASES: ReadonlyArray<readonly [number, number]> = [
  [COARSE_SIDE, COARSE_SIDE],
  ...FINE_LONG_SIDES.flatMap((long) => [[long, FINE_SIDE] as const, [FINE_SIDE, long] as const]),
];

/** The scale and the canvas (width, height) of one run over an image. */
interface Placement {
  readonly scale: number;
  readonly canvas: readonly [number, number];
}

const finePlacement = ({ width, height }: Size): Placement => {
  const [short, long] = [Math.min(width, height), Math.max(width, height)];
  const wanted = Math.min(1, FINE_SIDE / short);
  const side = FINE_LONG_SIDES.find((candidate) => long * wanted <= candidate) ?? 2 * FINE_SIDE;
  const scale = Math.min(wanted, side / long);
  return { scale, canvas: width >= height ? [side, FINE_SIDE] : [FINE_SIDE, side] };
};

const coarsePlacement = ({ width, height }: Size): Placement => ({ scale: COARSE_SIDE / Math.max(width, height), canvas: [COARSE_SIDE, COARSE_SIDE] });

export const loadBlazeFace = async (threads: number): Promise<BlazeFaceModel> => {
  const [json, bin] = await Promise.all([readPackagedModelFile(BLAZEFACE_JSON), readPackagedModelFile(BLAZEFACE_BIN)]);
  const graph = readTfjsGraphModel(new TextDecoder().decode(json), [bin]);
  const model = { nodes: graph.nodes, constants: freeAnchorCounts(graph.constants) };
  const outputs = ["Identity", "Identity_1", "Identity_2", "Identity_3"];
  const sessions = new Map(
    await Promise.all(
      CANVASES.map(
        async ([width, height]) =>
          [
            `${width}x${height}`,
            await createSession(tfjsGraphToOnnx(model, { name: "input", type: "float32", dims: [1, 3, height, width], layout: "nchw" }, outputs), threads),
          ] as const,
      ),
    ),
  );

  /** One run with the image scaled and padded onto its canvas; faces in the image's pixels. */
  const run = async (image: FacePixels, { scale, canvas: [canvasWidth, canvasHeight] }: Placement): Promise<ReadonlyArray<Face>> => {
    const session = sessions.get(`${canvasWidth}x${canvasHeight}`);
    if (session === undefined) throw new Error(`no face detection session for ${canvasWidth}x${canvasHeight}`);
    const width = Math.min(canvasWidth, Math.max(1, Math.round(image.width * scale)));
    const height = Math.min(canvasHeight, Math.max(1, Math.round(image.height * scale)));
    const pixels =
      width === image.width && height === image.height
        ? image.data
        : await sharp(image.data, { raw: { width: image.width, height: image.height, channels: image.channels } })
            .resize(width, height, { fit: "fill" })
            .raw()
            .toBuffer();
    const input = toCanvas(pixels, { width, height }, image.channels, [canvasWidth, canvasHeight]);
    const out = await session.run({ input: new ort.Tensor("float32", input, [1, 3, canvasHeight, canvasWidth]) });
    const tensor = (k: number) => out[`output${k}`]?.data as Float32Array;
    return BLAZEFACE_GRIDS.flatMap((grid, k) =>
      decodeGrid({ ...grid, scores: tensor(k), regressors: tensor(k + 2) }, canvasWidth, MIN_SCORE, width / image.width),
    );
  };

  return {
    detect: async (image) => {
      const fine = finePlacement(image);
      const coarse = coarsePlacement(image);
      const found = [...(await run(image, fine)), ...(coarse.scale < fine.scale * 0.75 ? await run(image, coarse) : [])];
      return suppressOverlaps(found, MAX_IOU);
    },
  };
};
