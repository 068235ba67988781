import { Effect, ManagedRuntime } from "effect";
import { afterAll, describe, expect, it } from "vitest";
import { BlazeFaceDetectorLive } from "../../src/adapters/faces/blazeface-face-detector.ts";
import { makeSharpImageEngine } from "../../src/adapters/image/sharp-image-engine.ts";
import { makeSharpImageInspector } from "../../src/adapters/image/sharp-image-inspector.ts";
import type { DesignLayout } from "../../src/domain/account-templates/account-template-design.ts";
import type { Box } from "../../src/domain/crop-window.ts";
import { FaceDetector } from "../../src/ports/engines/face-detector.ts";
import { DependencyUnavailable } from "../../src/ports/errors.ts";
import { faceSet } from "../fixtures/faces/face-set.ts";

/**
 * A photo drawn into several layouts of one call (an account template's variants) is looked at for
 * faces once: the faces the first layout found are handed to the next (DesignInputs.photoFaces),
 * and each layout still crops around them. Real BlazeFace, real libvips, a face-set photo.
 */
const runtime = ManagedRuntime.make(BlazeFaceDetectorLive());
afterAll(() => runtime.dispose());

const layout = (width: number, height: number): DesignLayout => ({
  canvas: { width, height, background: "#ffffff", format: "jpeg" },
  layers: [{ type: "photo", box: { x: 0, y: 0, width, height }, fit: "cover" }],
});

const contains = (outer: Box, inner: Box) =>
  inner.left >= outer.left &&
  inner.top >= outer.top &&
  inner.left + inner.width <= outer.left + outer.width &&
  inner.top + inner.height <= outer.top + outer.height;

describe("a photo in several layouts of one call", () => {
  it("is looked at for faces once, and every layout's crop keeps the face", async () => {
    const detector = await runtime.runPromise(Effect.service(FaceDetector));
    let detections = 0;
    const counting = { ...detector, detect: (...args: Parameters<typeof detector.detect>) => (detections++, detector.detect(...args)) };
    const noSegmenter = { segment: () => Effect.fail(new DependencyUnavailable({ dependency: "person-segmenter (not used here)" })) };
    const engine = makeSharpImageEngine(noSegmenter, { faces: counting });
    const photo = (await faceSet()).find((p) => p.name.startsWith("one small face, low and off-centre, tall"))!;
    const image = await Effect.runPromise(makeSharpImageInspector().inspect(photo.bytes));
    const face = photo.faces[0]!;

    const square = await Effect.runPromise(engine.renderDesign(layout(600, 600), { photo: image, images: {}, text: {} }));
    expect(detections).toBe(1);
    const found = square.framing!.faces;
    expect(found).toHaveLength(1);
    expect(contains(square.framing!.crop, face)).toBe(true);

    // A wide layout (a crop far from the tall photo's shape) and the square again, with the faces found.
    for (const [width, height] of [
      [1200, 630],
      [600, 600],
    ] as const) {
      const before = detections;
      const told = await Effect.runPromise(engine.renderDesign(layout(width, height), { photo: image, images: {}, text: {}, photoFaces: found }));
      expect(detections).toBe(before);
      expect(told.framing!.faces).toEqual(found);
      expect(told.framing!.crop.by).toBe("face");
      expect(contains(told.framing!.crop, face)).toBe(true);
      // Looked at again, the photo gives the same window (to a pixel's rounding).
      const looked = await Effect.runPromise(engine.renderDesign(layout(width, height), { photo: image, images: {}, text: {} }));
      for (const side of ["left", "top", "width", "height"] as const)
        expect(Math.abs(looked.framing!.crop[side] - told.framing!.crop[side])).toBeLessThanOrEqual(2);
    }
    expect(detections).toBe(3);
  });
});
