import { describe, expect, it } from "vitest";
import { type Box, coverWindowSize, type Face, placeCropWindow, type Size } from "../../src/domain/crop-window.ts";
import { templateCrop } from "../../src/domain/crop-window.ts";
import { TEMPLATES } from "../../src/domain/template-catalog/template-catalog.ts";

/** Every shape a catalog template crops to, once. */
const SHAPES: ReadonlyArray<Size> = [
  ...new Map(
    TEMPLATES.filter((t) => templateCrop(t) !== null).map((t) => {
      const cover = t.steps.find((s) => s.op === "resize" && s.fit === "cover") as Size;
      return [cover.width / cover.height, { width: cover.width, height: cover.height }] as const;
    }),
  ).values(),
];
const IMAGES: ReadonlyArray<Size> = [
  { width: 4000, height: 3000 },
  { width: 3000, height: 4000 },
  { width: 1000, height: 1000 },
  { width: 5000, height: 800 },
  { width: 333, height: 1999 },
];

const inside = (window: Box, image: Size) =>
  window.left >= 0 && window.top >= 0 && window.left + window.width <= image.width && window.top + window.height <= image.height;
const holds = (window: Box, box: Box) =>
  box.left >= window.left && box.top >= window.top && box.left + box.width <= window.left + window.width && box.top + box.height <= window.top + window.height;

const face = (left: number, top: number, side: number, score = 0.9): Face => ({
  box: { left, top, width: side, height: side },
  score,
  eyes: [
    { x: left + side * 0.3, y: top + side * 0.3 },
    { x: left + side * 0.7, y: top + side * 0.3 },
  ],
});

describe("a focal point crop", () => {
  it("holds the point, in every template shape, anywhere in the image", () => {
    expect(SHAPES.length).toBeGreaterThanOrEqual(8);
    for (const image of IMAGES)
      for (const shape of SHAPES)
        for (const x of [0, 0.03, 0.31, 0.5, 0.77, 0.999, 1])
          for (const y of [0, 0.12, 0.5, 0.88, 1]) {
            const placed = placeCropWindow(image, shape, { x, y }, []);
            if (placed.by !== "point") throw new Error("a point placement expected");
            const name = `${image.width}×${image.height} → ${shape.width}×${shape.height} at ${x},${y}`;
            expect(inside(placed.window, image), name).toBe(true);
            expect(placed.window.left <= x * image.width && x * image.width <= placed.window.left + placed.window.width, name).toBe(true);
            expect(placed.window.top <= y * image.height && y * image.height <= placed.window.top + placed.window.height, name).toBe(true);
            expect(placed.window.width / placed.window.height).toBeCloseTo(shape.width / shape.height, 1);
          }
  });

  it("is centred on the point when the image allows", () => {
    const placed = placeCropWindow({ width: 4000, height: 3000 }, { width: 1000, height: 1000 }, { x: 0.5, y: 0.4 }, []);
    expect(placed).toEqual({ by: "point", window: { left: 500, top: 0, width: 3000, height: 3000 } });
  });
});

describe("the face rule", () => {
  it("keeps every face when they fit, the largest with the others that fit when they do not", () => {
    const image = { width: 6000, height: 2000 };
    const faces = [face(300, 800, 300), face(2600, 700, 400), face(5400, 900, 250)];
    const wide = placeCropWindow(image, { width: 1584, height: 396 }, "auto", faces);
    if (wide.by !== "face") throw new Error("a face placement expected");
    expect(faces.every((f) => holds(wide.window, f.box))).toBe(true);
    const square = placeCropWindow(image, { width: 1, height: 1 }, "auto", faces);
    if (square.by !== "face") throw new Error("a face placement expected");
    expect(holds(square.window, faces[1]!.box)).toBe(true);
    expect(holds(square.window, faces[0]!.box) && holds(square.window, faces[2]!.box)).toBe(false);
  });

  it("leaves headroom, and puts the eyes on the upper third of a portrait window", () => {
    const f = face(1800, 4000, 300);
    const story = placeCropWindow({ width: 3000, height: 9000 }, { width: 1080, height: 1920 }, "auto", [f]);
    if (story.by !== "face") throw new Error("a face placement expected");
    expect((f.eyes![0].y - story.window.top) / story.window.height).toBeCloseTo(1 / 3, 2);
    const banner = placeCropWindow({ width: 4000, height: 6000 }, { width: 1584, height: 396 }, "auto", [f]);
    if (banner.by !== "face") throw new Error("a face placement expected");
    expect(f.box.top - banner.window.top).toBeGreaterThanOrEqual(0.4 * f.box.height);
    expect(holds(banner.window, f.box)).toBe(true);
  });

  it("falls back: auto to attention, face to the centre, with no face found", () => {
    const image = { width: 3000, height: 2000 };
    expect(placeCropWindow(image, { width: 1, height: 1 }, "auto", [])).toEqual({ by: "attention" });
    expect(placeCropWindow(image, { width: 1, height: 1 }, "attention", [face(0, 0, 100)])).toEqual({ by: "attention" });
    expect(placeCropWindow(image, { width: 1, height: 1 }, "face", [])).toEqual({ by: "centre", window: { left: 500, top: 0, width: 2000, height: 2000 } });
    expect(placeCropWindow(image, { width: 1, height: 1 }, "centre", [face(0, 0, 100)])).toEqual({
      by: "centre",
      window: { left: 500, top: 0, width: 2000, height: 2000 },
    });
  });

  it("always takes the largest window of the box's shape", () => {
    for (const image of IMAGES)
      for (const shape of SHAPES)
        expect(Math.max(coverWindowSize(image, shape).width / image.width, coverWindowSize(image, shape).height / image.height)).toBe(1);
  });
});
