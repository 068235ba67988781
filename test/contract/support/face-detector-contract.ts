import { Effect, type Layer, ManagedRuntime } from "effect";
import sharp from "sharp";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Box } from "../../../src/domain/crop-window.ts";
import { FaceDetector, type FaceDetectorShape, type FacePixels } from "../../../src/ports/engines/face-detector.ts";
import { type FacePhoto, faceSet } from "../../fixtures/faces/face-set.ts";

/** Overlap over union of two boxes. */
const iou = (a: Box, b: Box) => {
  const w = Math.min(a.left + a.width, b.left + b.width) - Math.max(a.left, b.left);
  const h = Math.min(a.top + a.height, b.top + b.height) - Math.max(a.top, b.top);
  const inter = Math.max(0, w) * Math.max(0, h);
  return inter / (a.width * a.height + b.width * b.height - inter);
};

/** A photo's displayed pixels (EXIF orientation applied) as the image engine hands them over, in `channels`. */
const pixelsOf = async (photo: FacePhoto, channels: FacePixels["channels"] = 3): Promise<FacePixels> => {
  const upright = sharp(photo.bytes).autoOrient();
  const shaped = channels === 1 ? upright.greyscale() : channels === 4 ? upright.ensureAlpha() : upright.removeAlpha();
  const { data, info } = await shaped.raw().toBuffer({ resolveWithObject: true });
  return { data, width: info.width, height: info.height, channels: info.channels as FacePixels["channels"] };
};

/** The rules every FaceDetector adapter keeps (ports/engines/face-detector.ts); one describe per adapter. */
export const faceDetectorContract = (name: string, layer: Layer.Layer<FaceDetector, unknown>) =>
  describe(`FaceDetector contract: ${name}`, () => {
    let runtime: ManagedRuntime.ManagedRuntime<FaceDetector, unknown>;
    let detector: FaceDetectorShape;
    let photos: ReadonlyArray<FacePhoto>;
    beforeAll(async () => {
      runtime = ManagedRuntime.make(layer);
      detector = await runtime.runPromise(Effect.service(FaceDetector));
      photos = await faceSet();
    });
    afterAll(() => runtime?.dispose());

    const photo = (prefix: string) => photos.find((candidate) => candidate.name.startsWith(prefix))!;
    const detect = async (pixels: FacePixels) => Effect.runPromise(detector.detect(pixels));

    it("states the side it reads images at", () => {
      expect(Number.isInteger(detector.workingSide)).toBe(true);
      expect(detector.workingSide).toBeGreaterThan(0);
    });

    it("finds each face, frontal and three-quarter, in the image's pixels: its box over the face, its eyes inside it, a score of 0-1", async () => {
      for (const name of ["astronaut", "cameraman", "two people", "small faces"]) {
        const shown = photo(name);
        const found = await detect(await pixelsOf(shown));
        expect(found.length, shown.name).toBe(shown.faces.length);
        for (const face of shown.faces) {
          const best = found.reduce((a, b) => (iou(b.box, face) > iou(a.box, face) ? b : a));
          expect(iou(best.box, face), `${shown.name}: face at ${face.left},${face.top}`).toBeGreaterThan(0.4);
          expect(best.score).toBeGreaterThan(0);
          expect(best.score).toBeLessThanOrEqual(1);
          for (const eye of best.eyes ?? []) {
            expect(eye.x).toBeGreaterThanOrEqual(best.box.left);
            expect(eye.x).toBeLessThanOrEqual(best.box.left + best.box.width);
            expect(eye.y).toBeGreaterThanOrEqual(best.box.top);
            expect(eye.y).toBeLessThanOrEqual(best.box.top + best.box.height);
          }
        }
      }
    });

    it("finds none where there is no face", async () => {
      for (const name of ["no face: rocket", "no face: coffee"]) expect(await detect(await pixelsOf(photo(name))), name).toEqual([]);
    });

    it("reads grey, RGB and RGBA pixels of the same photo alike", async () => {
      const astronaut = photo("astronaut");
      const boxes = await Promise.all(
        ([1, 3, 4] as const).map(async (channels) => (await detect(await pixelsOf(astronaut, channels))).map((face) => face.box)),
      );
      for (const found of boxes) {
        expect(found).toHaveLength(1);
        expect(iou(found[0]!, astronaut.faces[0]!)).toBeGreaterThan(0.4);
      }
    });
  });
