import ort from "onnxruntime-node";
import sharp from "sharp";
import type { Face, Size } from "../../domain/crop-window.ts";
import type { FacePixels } from "../../ports/engines/face-detector.ts";
import { BLAZEFACE_BIN, BLAZEFACE_JSON, readPackagedModelFile } from "../models/packaged-models.ts";
import { createSession } from "../onnx/onnx-session.ts";
import { readTfjsGraphModel, type TfjsConstant, type TfjsNode } from "../onnx/tfjs-graph-model.ts";
import { tfjsGraphToOnnx } from "../onnx/tfjs-graph-to-onnx.ts";
import { CANVASES, COARSE_CANVASES, coarsePlacement, finePlacement, placedSize, type Placement } from "./blazeface-canvases.ts";
import { BLAZEFACE_GRIDS, decodeGrid, suppressOverlaps } from "./blazeface-decoding.ts";

/**
 * MediaPipe BlazeFace (back-camera variant) on onnxruntime-node, run at two scales of the photo
 * (FINE_SIDE, COARSE_SIDE). The model is fully convolutional: converted with a free input size,
 * one run over the whole photo does what tiling it into 256-pixel squares would, without seams.
 * Cost (one core, at the median, loaded AVX-512 machine, onnxruntime 1.30): a 576×384 fine run
 * ~17 ms (three quarters of it in the layers at half the canvas's resolution, the first 5×5
 * convolution alone a fifth; onnxruntime's profile), the 256-pixel run ~5 ms; the fine run is
 * most of what detection adds to a crop, when it runs (docs/benchmarks.md).
 */
const MIN_SCORE = 0.75;
const MAX_IOU = 0.3;

/**
 * The coarse run goes first; a face it finds confidently at EXPLAINING_HEIGHT pixels of its
 * canvas or more explains the photo, and the fine run (most of detection's cost) is skipped.
 * The coarse run finds faces from about 20 of its pixels (score ≥ 0.75 from 18-20, measured on
 * the face set's astronaut scaled down): a face the fine run alone would add is then under 40 %
 * of that face's height, a face in the background, which the crop may cut.
 */
const EXPLAINING_HEIGHT = 50;
const EXPLAINING_SCORE = 0.85;

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
 * A canvas as the model reads it: the RGB bytes (channels last, as TensorFlow had them) at its top
 * left, the rest black. The model widens them to [-1, 1] itself (tfjsGraphToOnnx's `rescale`):
 * a JavaScript loop over every pixel cost more than onnxruntime's vectorised kernels.
 */
const toCanvas = (pixels: Uint8Array, { width, height }: Size, [canvasWidth, canvasHeight]: readonly [number, number]): Uint8Array => {
  if (width === canvasWidth && height === canvasHeight) return pixels;
  const canvas = new Uint8Array(3 * canvasWidth * canvasHeight);
  for (let y = 0; y < height; y++) canvas.set(pixels.subarray(3 * y * width, 3 * (y + 1) * width), 3 * y * canvasWidth);
  return canvas;
};

/**
 * The outputs a canvas's session computes, and their grids. The fine run is there for the faces
 * too small for the coarse one, which the 16-pixel grid finds (its anchors are ~40 and ~56 pixels;
 * the 32-pixel grid's, 80-190): its sessions stop at that grid's head, a fifth less CPU per run.
 * The coarse run, which finds every face from ~20 of its pixels up, keeps both.
 */
const BOTH_GRIDS = { outputs: ["Identity", "Identity_1", "Identity_2", "Identity_3"], grids: BLAZEFACE_GRIDS } as const;
const FINE_GRID = { outputs: ["Identity", "Identity_2"], grids: [BLAZEFACE_GRIDS[0]] } as const;

/** The nodes `outputs` depend on (onnxruntime computes every node of a graph, used or not). */
const reaching = (nodes: ReadonlyArray<TfjsNode>, outputs: ReadonlyArray<string>): ReadonlyArray<TfjsNode> => {
  const byName = new Map(nodes.map((node) => [node.name, node]));
  const needed = new Set<string>();
  const pending = [...outputs];
  for (let name = pending.pop(); name !== undefined; name = pending.pop()) {
    if (needed.has(name)) continue;
    needed.add(name);
    for (const input of byName.get(name)?.input ?? []) pending.push(input.replace(/^\^/, "").split(":")[0] ?? "");
  }
  return nodes.filter((node) => needed.has(node.name));
};

/**
 * Each canvas's session (blazeface-canvases.ts) keeps its buffers between runs (an arena; ~90 MiB
 * for all ten once each has run, two or three for most photos): freed and allocated afresh each
 * run, a fine run's activations were faulted in again, up to twice the run's CPU depending on the
 * allocator's state; detection 12 % less CPU on the face set (bench/face-detection-cost.ts, 2026-11-27).
 */
export const loadBlazeFace = async (threads: number): Promise<BlazeFaceModel> => {
  const [json, bin] = await Promise.all([readPackagedModelFile(BLAZEFACE_JSON), readPackagedModelFile(BLAZEFACE_BIN)]);
  const graph = readTfjsGraphModel(new TextDecoder().decode(json), [bin]);
  const model = { nodes: graph.nodes, constants: freeAnchorCounts(graph.constants) };
  const sessions = new Map(
    await Promise.all(
      CANVASES.map(async ([width, height]) => {
        const head = COARSE_CANVASES.some(([w, h]) => w === width && h === height) ? BOTH_GRIDS : FINE_GRID;
        const input = { name: "input", type: "uint8", dims: [1, height, width, 3], layout: "nhwc", rescale: { scale: 1 / 127.5, offset: -1 } } as const;
        const onnx = tfjsGraphToOnnx({ ...model, nodes: reaching(model.nodes, head.outputs) }, input, head.outputs);
        return [`${width}x${height}`, { session: await createSession(onnx, threads, { arena: true, spinning: false }), grids: head.grids }] as const;
      }),
    ),
  );

  /** One run with the image scaled and padded onto its canvas; faces in the image's pixels. */
  const run = async (image: FacePixels, placement: Placement): Promise<ReadonlyArray<Face>> => {
    const [canvasWidth, canvasHeight] = placement.canvas;
    const { session, grids } = sessions.get(`${canvasWidth}x${canvasHeight}`) ?? {};
    if (session === undefined || grids === undefined) throw new Error(`no face detection session for ${canvasWidth}x${canvasHeight}`);
    const { width, height } = placedSize(image, placement);
    const pixels =
      width === image.width && height === image.height && image.channels === 3
        ? image.data
        : await sharp(image.data, { raw: { width: image.width, height: image.height, channels: image.channels } })
            .removeAlpha()
            .toColourspace("srgb")
            .resize(width, height, { fit: "fill", kernel: "linear" })
            .raw()
            .toBuffer();
    if (pixels.length !== 3 * width * height) throw new Error(`face detection expected ${width}×${height} RGB pixels, got ${pixels.length} bytes`);
    const input = toCanvas(pixels, { width, height }, [canvasWidth, canvasHeight]);
    const out = await session.run({ input: new ort.Tensor("uint8", input, [1, canvasHeight, canvasWidth, 3]) });
    const tensor = (k: number) => out[`output${k}`]?.data as Float32Array;
    return grids.flatMap((grid, k) =>
      decodeGrid({ ...grid, scores: tensor(k), regressors: tensor(k + grids.length) }, canvasWidth, MIN_SCORE, width / image.width),
    );
  };

  return {
    detect: async (image) => {
      const coarse = coarsePlacement(image);
      const fine = finePlacement(image);
      const large = await run(image, coarse);
      // A small photo's coarse run is nearly at the fine scale, with both grids: the fine run would find nothing more.
      const explained =
        coarse.scale >= fine.scale * 0.75 || large.some((face) => face.score >= EXPLAINING_SCORE && face.box.height * coarse.scale >= EXPLAINING_HEIGHT);
      return suppressOverlaps(explained ? large : [...large, ...(await run(image, fine))], MAX_IOU);
    },
  };
};
