import { describe, expect, it } from "vitest";
import { decodeRaw } from "../../src/adapters/image/raw-decoding.ts";
import { readPackagedModelFile, SELFIE_SEGMENTATION_TFLITE } from "../../src/adapters/models/packaged-models.ts";
import { readTfliteModel } from "../../src/adapters/onnx/tflite-model.ts";
import { tfliteToOnnx } from "../../src/adapters/onnx/tflite-to-onnx.ts";
import { armCapsules, locateArms } from "../../src/adapters/tryon/arms.ts";
import { detectGarment } from "../../src/adapters/tryon/garment/garment-mask.ts";
import { analyseGarment, PART } from "../../src/adapters/tryon/garment/garment-parts.ts";
import { layParts } from "../../src/adapters/tryon/garment/part-layers.ts";
import { fitThinPlateSpline } from "../../src/adapters/tryon/garment/thin-plate-spline.ts";
import { hairInFront } from "../../src/adapters/tryon/hair-in-front.ts";
import { fittedQuad, locateTorso } from "../../src/adapters/tryon/torso.ts";
import { torsoCoverage } from "../../src/adapters/tryon/torso-coverage.ts";
import * as fixtures from "../fixtures/tryon/tryon-fixtures.ts";

describe("try-on stages", () => {
  it("reads packaged model files only when their checksum matches the recorded one", async () => {
    const bytes = await readPackagedModelFile(SELFIE_SEGMENTATION_TFLITE);
    expect(bytes.length).toBeGreaterThan(100_000);
    await expect(readPackagedModelFile({ ...SELFIE_SEGMENTATION_TFLITE, sha256: "0".repeat(64) })).rejects.toThrow(/SHA-256/);
  });

  it("refuses a TensorFlow Lite operator it does not know, by name", async () => {
    const model = readTfliteModel(await readPackagedModelFile(SELFIE_SEGMENTATION_TFLITE));
    const altered = { ...model, operators: model.operators.map((op, i) => (i === 2 ? { ...op, op: "LSTM" } : op)) };
    expect(() => tfliteToOnnx(altered)).toThrow(/unsupported TensorFlow Lite operator LSTM/);
  });

  it("fits a thin-plate spline through its control points", () => {
    const from = [
      { x: 0, y: 0 },
      { x: 10, y: 0 },
      { x: 0, y: 10 },
      { x: 10, y: 10 },
      { x: 5, y: 5 },
    ];
    const to = [
      { x: 1, y: 2 },
      { x: 12, y: 1 },
      { x: -1, y: 13 },
      { x: 11, y: 11 },
      { x: 7, y: 4 },
    ];
    const spline = fitThinPlateSpline(from, to);
    from.forEach((p, i) => {
      expect(spline.map(p).x).toBeCloseTo(to[i]!.x, 6);
      expect(spline.map(p).y).toBeCloseTo(to[i]!.y, 6);
    });
  });

  it("finds the drawn T-shirt and its body, sleeves excluded", async () => {
    // Drawn at 600×700 with the body between x 150 and 450, top at y 60, hem at y 640.
    const detection = detectGarment(await decodeRaw(await fixtures.tshirt(), true));
    expect(detection.found).toBe(true);
    if (!detection.found) return;
    const { garment } = detection;
    expect(garment.bodyLeft).toBeCloseTo(150, -1);
    expect(garment.bodyRight).toBeCloseTo(450, -1);
    expect(garment.left).toBeLessThan(60);
    expect(garment.top).toBeCloseTo(60, -1);
    expect(garment.bottom).toBeCloseTo(640, -1);
  });

  it("places the torso below the shoulders, widens it for a loose fit and needs both shoulders", () => {
    const point = (name: string, x: number, y: number, score = 0.9) => ({ name, x, y, score });
    const keypoints = [point("left_shoulder", 300, 200), point("right_shoulder", 100, 200), point("left_hip", 270, 460), point("right_hip", 130, 460)];
    const torso = locateTorso(keypoints)!;
    expect(torso.shoulderWidth).toBe(200);
    expect(torso.quad[0].x).toBeLessThan(100);
    expect(torso.quad[2].y).toBeCloseTo(460, 0);
    const width = (q: ReadonlyArray<{ x: number }>) => q[1]!.x - q[0]!.x;
    expect(width(fittedQuad(torso, "loose"))).toBeGreaterThan(width(fittedQuad(torso, "regular")));
    expect(width(fittedQuad(torso, "tight"))).toBeLessThan(width(fittedQuad(torso, "regular")));
    expect(locateTorso([keypoints[0]!, { ...keypoints[1]!, score: 0.1 }])).toBeUndefined();
  });

  const analyse = async (bytes: Uint8Array) => {
    const detection = detectGarment(await decodeRaw(bytes, true));
    if (!detection.found) throw new Error(detection.reason);
    return analyseGarment(detection.garment);
  };

  it("tells tops by their sleeves, and refuses trousers, a skirt and a dress by their outline", async () => {
    const kinds = async (bytes: Uint8Array) => {
      const analysis = await analyse(bytes);
      return analysis.placeable ? analysis.parts.kind : analysis.kind;
    };
    expect(await kinds(await fixtures.tshirt())).toBe("short-sleeve");
    expect(await kinds(await fixtures.tshirtCutout())).toBe("short-sleeve");
    expect(await kinds(await fixtures.longSleeveShirt())).toBe("long-sleeve");
    expect(await kinds(await fixtures.tankTop())).toBe("sleeveless");
    expect(await kinds(await fixtures.trousers())).toBe("trousers");
    expect(await kinds(await fixtures.skirt())).toBe("skirt");
    expect(await kinds(await fixtures.dress())).toBe("dress");
  });

  it("finds each sleeve of the drawn T-shirt: its root on the body's side, its cuff", async () => {
    // Drawn: left sleeve root x 150, y 88-225; cuff from (40, 210) to (120, 260); mirrored on the right.
    const analysis = await analyse(await fixtures.tshirtParts());
    if (!analysis.placeable) throw new Error("refused");
    const [left, right] = analysis.parts.sleeves;
    expect([left?.side, right?.side]).toEqual(["left", "right"]);
    expect(left!.rootTop.x).toBeCloseTo(150, -1);
    expect(left!.rootTop.y).toBeCloseTo(88, -1);
    expect(left!.rootBottom.y).toBeCloseTo(225, -1);
    expect(Math.hypot(left!.cuff.x - 80, left!.cuff.y - 235)).toBeLessThan(12);
    expect(Math.hypot(right!.cuff.x - 520, right!.cuff.y - 235)).toBeLessThan(12);
    const { labels } = analysis.parts;
    expect(labels[200 * 600 + 100]).toBe(PART.leftSleeve);
    expect(labels[200 * 600 + 500]).toBe(PART.rightSleeve);
    expect(labels[400 * 600 + 300]).toBe(PART.torso);
  });

  it("takes each limb by the shoulder it hangs from, and keeps only seen parts of an arm in front of the torso", () => {
    const point = (name: string, x: number, y: number, score = 0.9) => ({ name, x, y, score });
    // The person's left is on the image's right.
    const keypoints = [
      point("left_shoulder", 300, 200),
      point("right_shoulder", 100, 200),
      point("left_elbow", 320, 330),
      point("left_wrist", 220, 380),
      point("right_elbow", 90, 330, 0.1),
    ];
    const torso = locateTorso(keypoints)!;
    const [imageLeft, imageRight] = locateArms(keypoints, torso);
    expect(imageLeft.elbow).toBeUndefined();
    // Unseen: hanging down, a little outward (to the image's left).
    expect(imageLeft.upper.y).toBeGreaterThan(0.9);
    expect(imageLeft.upper.x).toBeLessThan(0);
    expect(imageRight.elbow).toMatchObject({ x: 320, y: 330 });
    expect(imageRight.outward.x).toBeGreaterThan(0);
    expect(armCapsules(imageLeft, torso)).toEqual({});
    const { upper, forearm, hand } = armCapsules(imageRight, torso);
    // Its elbow is beside the torso, not across it: the upper arm does not hold the panel back.
    expect(upper).toBeUndefined();
    expect(forearm).toMatchObject({ a: { x: 320, y: 330 }, b: { x: 220, y: 380 } });
    expect(hand!.b.x).toBeLessThan(220);
  });

  it("lays later parts over earlier ones, each held behind the capsules in front of it", () => {
    const part = (value: number, alpha: number) => {
      const data = new Float32Array(4 * 16);
      for (let i = 0; i < 16; i++) {
        for (let c = 0; c < 3; c++) data[c * 16 + i] = value * alpha;
        data[48 + i] = alpha;
      }
      return data;
    };
    const { data, box } = layParts([
      { data: part(0.2, 1), box: { left: 0, top: 0, right: 4, bottom: 4 }, behind: [{ a: { x: 0, y: 0 }, b: { x: 0, y: 4 }, radius: 1 }] },
      { data: part(0.8, 0.5), box: { left: 2, top: 0, right: 6, bottom: 4 }, behind: [] },
    ]);
    expect(box).toEqual({ left: 0, top: 0, right: 6, bottom: 4 });
    const at = (c: number, x: number, y: number) => data[c * 24 + y * 6 + x]!;
    // x 0 lies inside the first part's capsule: nothing of it there; x 1 is clear of it.
    expect(at(3, 0, 1)).toBe(0);
    expect(at(3, 1, 1)).toBeCloseTo(1, 5);
    // x 3: half of the second over the first.
    expect(at(3, 3, 1)).toBeCloseTo(1, 5);
    expect(at(0, 3, 1)).toBeCloseTo(0.5 * 0.8 + 0.5 * 0.2, 5);
    expect(at(3, 5, 1)).toBeCloseTo(0.5, 5);
  });

  it("measures coverage over the torso within the silhouette, less the arms and hair in front and the face", () => {
    const width = 100;
    const height = 100;
    // The garment covers the left half of the frame, fully opaque.
    const rgba = new Uint8Array(4 * width * height);
    for (let y = 0; y < height; y++) for (let x = 0; x < 50; x++) rgba[4 * (y * width + x) + 3] = 255;
    const quad = [
      { x: 20, y: 20 },
      { x: 80, y: 20 },
      { x: 80, y: 80 },
      { x: 20, y: 80 },
    ];
    const person = { values: new Float32Array(50 * 50).fill(1), width: 50, height: 50 };
    const noFace = { cx: -100, cy: -100, rx: 1, ry: 1 };
    const noHair = { values: new Float32Array(25 * 25), width: 25, height: 25 };
    expect(torsoCoverage({ rgba, width, height }, quad, person, [], noFace, noHair)).toBeCloseTo(0.5, 2);
    // An arm in front over the uncovered half's middle: less torso, the same covered part.
    const arm = { a: { x: 65, y: 10 }, b: { x: 65, y: 90 }, radius: 5 };
    expect(torsoCoverage({ rgba, width, height }, quad, person, [arm], noFace, noHair)).toBeCloseTo(30 / 50, 2);
    // Hair in front over the covered half's rows 20-40 (its map at 2 px a cell): less torso, less of it covered.
    const hair = {
      width: 50,
      height: 50,
      values: Float32Array.from({ length: 2500 }, (_, i) => (i >= 10 * 50 && i < 20 * 50 && i % 50 >= 10 && i % 50 < 25 ? 1 : 0)),
    };
    expect(torsoCoverage({ rgba, width, height }, quad, person, [], noFace, hair)).toBeCloseTo(1200 / 3000, 2);
    // Outside the silhouette (its right half) is not torso.
    const left = { ...person, values: Float32Array.from({ length: 2500 }, (_, i) => (i % 50 < 25 ? 1 : 0)) };
    expect(torsoCoverage({ rgba, width, height }, quad, left, [], noFace, noHair)).toBeCloseTo(1, 2);
  });

  it("keeps hair in front only over the torso, and only where its colour is the hair's above the shoulders", () => {
    const size = 100;
    // Blonde everywhere, a black patch (dark clothes the model reads as hair) at x 40-60, y 60-80.
    const data = new Uint8Array(3 * size * size);
    for (let i = 0; i < size * size; i++)
      data.set((i % size) - 40 >= 0 && i % size < 60 && i >= 60 * size && i < 80 * size ? [10, 10, 10] : [200, 160, 100], 3 * i);
    const image = { data, width: size, height: size, channels: 3 as const };
    const hair = { values: new Float32Array(size * size).fill(1), width: size, height: size };
    const quad = [
      { x: 30, y: 20 },
      { x: 70, y: 20 },
      { x: 70, y: 90 },
      { x: 30, y: 90 },
    ];
    const front = hairInFront(hair, image, quad, 40);
    const at = (x: number, y: number) => front.values[y * size + x]!;
    expect(at(50, 40)).toBeCloseTo(1, 5);
    expect(at(50, 10)).toBeCloseTo(1, 5); // over the shoulders' tops, above the shoulder line
    expect(at(50, 70)).toBe(0); // dark clothes, not hair
    expect(at(10, 50)).toBe(0); // beside the torso: behind the shoulders
    expect(at(50, 98)).toBe(0); // below the hips
  });
});
