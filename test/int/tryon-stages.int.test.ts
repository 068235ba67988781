import { describe, expect, it } from "vitest";
import { decodeRaw } from "../../src/adapters/imaging/raw-image.ts";
import { readPackagedModelFile, SELFIE_SEGMENTATION_TFLITE } from "../../src/adapters/models/packaged-models.ts";
import { readTfliteModel } from "../../src/adapters/onnx/tflite-model.ts";
import { tfliteToOnnx } from "../../src/adapters/onnx/tflite-to-onnx.ts";
import { detectGarment } from "../../src/adapters/tryon/garment-mask.ts";
import { fitThinPlateSpline } from "../../src/adapters/tryon/thin-plate-spline.ts";
import { fittedQuad, locateTorso } from "../../src/adapters/tryon/torso.ts";
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
    const from = [{ x: 0, y: 0 }, { x: 10, y: 0 }, { x: 0, y: 10 }, { x: 10, y: 10 }, { x: 5, y: 5 }];
    const to = [{ x: 1, y: 2 }, { x: 12, y: 1 }, { x: -1, y: 13 }, { x: 11, y: 11 }, { x: 7, y: 4 }];
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
});
