import { readFileSync } from "node:fs";
import { beforeAll, describe, expect, it } from "vitest";
import { decodeRaw } from "../../src/adapters/image/raw-decoding.ts";
import { type HairSegmentationModel, loadHairSegmentation } from "../../src/adapters/segmentation/hair-segmentation-model.ts";
import type { ProbabilityMap } from "../../src/adapters/segmentation/selfie-segmentation-model.ts";

/**
 * MediaPipe's hair model as the project's converter writes it (MaxPoolingWithArgmax2D, MaxUnpooling2D
 * and Convolution2DTransposeBias among its operators), run by onnxruntime on two photos of long
 * hair (test/fixtures/people/SOURCES.md). No runtime with MediaPipe's custom operators runs here to
 * compare with (the operators themselves are checked against MediaPipe's kernels in
 * tflite-argmax-pooling.int.test.ts), so the whole model is checked on what the photos plainly
 * show: boxes (shares of the photo's width and height) of hair, of the face and of the backdrop.
 */
interface Box {
  readonly x: readonly [number, number];
  readonly y: readonly [number, number];
}

const meanIn = (map: ProbabilityMap, { x, y }: Box): number => {
  let sum = 0;
  let n = 0;
  for (let row = Math.round(y[0] * map.height); row < Math.round(y[1] * map.height); row++)
    for (let col = Math.round(x[0] * map.width); col < Math.round(x[1] * map.width); col++, n++) sum += map.values[row * map.width + col]!;
  return sum / n;
};

const PHOTOS = [
  {
    file: "long-hair-blonde-straight.jpg",
    hair: [
      { x: [0.33, 0.4], y: [0.65, 0.85] },
      { x: [0.64, 0.7], y: [0.6, 0.8] },
      { x: [0.4, 0.6], y: [0.02, 0.12] },
    ],
    notHair: [
      { x: [0.42, 0.6], y: [0.3, 0.55] },
      { x: [0, 0.15], y: [0, 0.3] },
    ],
  },
  {
    file: "long-hair-curly.jpg",
    hair: [
      { x: [0.05, 0.2], y: [0.4, 0.7] },
      { x: [0.8, 0.93], y: [0.4, 0.7] },
      { x: [0.3, 0.7], y: [0.05, 0.15] },
    ],
    notHair: [
      { x: [0.35, 0.6], y: [0.35, 0.55] },
      { x: [0.4, 0.6], y: [0.9, 1] },
    ],
  },
] satisfies ReadonlyArray<{ file: string; hair: ReadonlyArray<Box>; notHair: ReadonlyArray<Box> }>;

let model: HairSegmentationModel;

beforeAll(async () => {
  model = await loadHairSegmentation(2);
});

describe("hair segmentation, converted from TensorFlow Lite", () => {
  it.each(PHOTOS)("finds the hair of $file and nothing of its face or backdrop", async ({ file, hair, notHair }) => {
    const image = await decodeRaw(readFileSync(new URL(`../fixtures/people/${file}`, import.meta.url)), false, 1024);
    const map = await model.probabilities(image);
    expect(map.width / map.height).toBeCloseTo(image.width / image.height, 1);
    const hairMeans = hair.map((box) => meanIn(map, box));
    const otherMeans = notHair.map((box) => meanIn(map, box));
    for (const v of hairMeans) expect(v).toBeGreaterThan(0.8);
    for (const v of otherMeans) expect(v).toBeLessThan(0.1);
  });
});
