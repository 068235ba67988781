import { Effect, ManagedRuntime } from "effect";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { BlazeFaceDetectorLive } from "../../src/adapters/faces/blazeface-face-detector.ts";
import { makeSharpImageEngine } from "../../src/adapters/image/sharp-image-engine.ts";
import { makeSharpImageInspector } from "../../src/adapters/image/sharp-image-inspector.ts";
import type { Box, Focus } from "../../src/domain/crop-window.ts";
import { type Template } from "../../src/domain/template-catalog/template.ts";
import { TEMPLATES } from "../../src/domain/template-catalog/template-catalog.ts";
import { FaceDetector, type FaceDetectorShape } from "../../src/ports/engines/face-detector.ts";
import type { Framing } from "../../src/ports/engines/image.ts";
import { type FacePhoto, faceSet } from "../fixtures/faces/face-set.ts";
import { ellipsePersonSegmenter } from "../support/ellipse-person-segmenter.ts";

/**
 * The face set (test/fixtures/faces) through every template that crops to fill, with the real
 * detector (BlazeFace on onnxruntime, in its thread) and the real engine. The same photos through
 * the old behaviour (focus "attention", libvips' saliency alone) are counted beside, for the report.
 */
const COVER_TEMPLATES = TEMPLATES.filter((t) => t.steps.some((s) => s.op === "resize" && s.fit === "cover"));

const runtime = ManagedRuntime.make(BlazeFaceDetectorLive());
let detector: FaceDetectorShape;
let photos: ReadonlyArray<FacePhoto>;
const inspector = makeSharpImageInspector();

beforeAll(async () => {
  detector = await runtime.runPromise(
    Effect.gen(function* () {
      return yield* FaceDetector;
    }),
  );
  photos = await faceSet();
}, 60_000);
afterAll(() => runtime.dispose());

const contains = (outer: Box, inner: Box, slack = 1) =>
  inner.left >= outer.left - slack &&
  inner.top >= outer.top - slack &&
  inner.left + inner.width <= outer.left + outer.width + slack &&
  inner.top + inner.height <= outer.top + outer.height + slack;

const iou = (a: Box, b: Box) => {
  const w = Math.min(a.left + a.width, b.left + b.width) - Math.max(a.left, b.left);
  const h = Math.min(a.top + a.height, b.top + b.height) - Math.max(a.top, b.top);
  const inter = Math.max(0, w) * Math.max(0, h);
  return inter / (a.width * a.height + b.width * b.height - inter);
};

const union = (boxes: ReadonlyArray<Box>): Box => {
  const left = Math.min(...boxes.map((b) => b.left));
  const top = Math.min(...boxes.map((b) => b.top));
  return { left, top, width: Math.max(...boxes.map((b) => b.left + b.width)) - left, height: Math.max(...boxes.map((b) => b.top + b.height)) - top };
};

const fits = (box: Box, window: Box) => box.width <= window.width && box.height <= window.height;
const largest = (faces: ReadonlyArray<Box>) => faces.reduce((a, b) => (b.width * b.height > a.width * a.height ? b : a));

const frame = async (photo: FacePhoto, template: Template, focus: Focus): Promise<Framing> => {
  const engine = makeSharpImageEngine(ellipsePersonSegmenter().service, { faces: detector });
  const rendered = await Effect.runPromise(Effect.flatMap(inspector.inspect(photo.bytes), (image) => engine.render(image, template, { focus })));
  expect(rendered.width).toBe(template.output.width);
  if (!rendered.framing) throw new Error(`${template.template}: no framing reported`);
  return rendered.framing;
};

/** Whether a crop keeps what it should: the largest face whole, and every face when they fit together. */
const verdict = (photo: FacePhoto, crop: Box) => {
  if (photo.faces.length === 0) return { largestWhole: true, allWhole: true, largestCanFit: true, allCanFit: true };
  const big = largest(photo.faces);
  return {
    largestWhole: contains(crop, big),
    allWhole: photo.faces.every((f) => contains(crop, f)),
    largestCanFit: fits(big, crop),
    allCanFit: fits(union(photo.faces), crop),
  };
};

describe("the face detector on the face set", () => {
  it("finds every hand-checked face, and nothing in the photos without one", async () => {
    for (const photo of photos) {
      const image = await Effect.runPromise(inspector.inspect(photo.bytes));
      const engine = makeSharpImageEngine(ellipsePersonSegmenter().service, { faces: detector });
      const square = COVER_TEMPLATES.find((t) => t.template === "instagram-square")!;
      const rendered = await Effect.runPromise(engine.render(image, square, { focus: "face" }));
      const found = rendered.framing?.faces ?? [];
      expect(found.length, photo.name).toBe(photo.faces.length);
      for (const face of photo.faces)
        expect(Math.max(...found.map((f) => iou(f.box, face))), `${photo.name}: face at ${face.left},${face.top}`).toBeGreaterThan(0.4);
    }
  }, 120_000);
});

describe("crops to fill keep faces", () => {
  it("through every cover template: the largest face whole, every face where they fit together; attention without faces", async () => {
    const report: Array<string> = [];
    let [newCuts, oldCuts, total] = [0, 0, 0];
    for (const photo of photos) {
      for (const template of COVER_TEMPLATES) {
        const name = `${photo.name} → ${template.templateType}/${template.template}`;
        const framing = await frame(photo, template, "auto");
        const old = await frame(photo, template, "attention");
        const now = verdict(photo, framing.crop);
        const before = verdict(photo, old.crop);
        total += 1;
        if (!now.largestWhole) newCuts += 1;
        if (!before.largestWhole) oldCuts += 1;
        if (photo.faces.length === 0) {
          expect(framing.crop.by, name).toBe("attention");
          expect(framing.crop, name).toEqual(old.crop);
          continue;
        }
        expect(framing.crop.by, name).toBe("face");
        if (now.largestCanFit) expect(now.largestWhole, `${name}: largest face cut`).toBe(true);
        else {
          // A face taller than the window cannot be whole: the window holds its middle (the eyes).
          const big = largest(photo.faces);
          expect(contains(framing.crop, { ...big, top: big.top + big.height * 0.2, height: big.height * 0.3 }), name).toBe(true);
        }
        if (now.allCanFit) expect(now.allWhole, `${name}: a face cut though all fit`).toBe(true);
        if (before.largestWhole !== now.largestWhole || before.allWhole !== now.allWhole) {
          report.push(
            `${name}: attention ${before.allWhole ? "kept every face" : before.largestWhole ? "cut a face" : "cut the largest face"}, faces first ${now.allWhole ? "keeps every face" : "keeps the largest"}`,
          );
        }
      }
    }
    console.log(
      `face crops: ${total} crops (${photos.length} photos × ${COVER_TEMPLATES.length} templates); the largest face cut: ` +
        `${oldCuts} by attention alone (the old behaviour), ${newCuts} faces first (where it cannot fit)\n${report.join("\n")}`,
    );
    expect(newCuts).toBeLessThan(oldCuts);
  }, 600_000);
});
