import ort from "onnxruntime-node";
import sharp from "sharp";
import { describe, expect, it } from "vitest";
import { BLAZEFACE_BIN, BLAZEFACE_JSON, readPackagedModelFile } from "../../src/adapters/models/packaged-models.ts";
import { createSession } from "../../src/adapters/onnx/onnx-session.ts";
import { readTfjsGraphModel } from "../../src/adapters/onnx/tfjs-graph-model.ts";
import { tfjsGraphToOnnx } from "../../src/adapters/onnx/tfjs-graph-to-onnx.ts";
import { faceSet } from "../fixtures/faces/face-set.ts";

/**
 * The converter's `rescale`: a model fed bytes, which widens them to its own range inside the
 * graph (the face detector's canvases), computes what the same model computes from floats made
 * in JavaScript. BlazeFace on the face set's astronaut, both at 256×256.
 */
describe("tfjs graph conversion with the input rescaled inside the model", () => {
  it("gives the outputs of the float model fed (value / 127.5 - 1)", async () => {
    const [json, bin] = await Promise.all([readPackagedModelFile(BLAZEFACE_JSON), readPackagedModelFile(BLAZEFACE_BIN)]);
    const model = readTfjsGraphModel(new TextDecoder().decode(json), [bin]);
    const outputs = ["Identity", "Identity_1", "Identity_2", "Identity_3"];
    const side = 256;
    const bytes = await sharp((await faceSet())[0]?.bytes)
      .resize(side, side)
      .removeAlpha()
      .raw()
      .toBuffer();
    const floats = Float32Array.from(bytes, (v) => v / 127.5 - 1);
    const [fromFloats, fromBytes] = await Promise.all([
      createSession(tfjsGraphToOnnx(model, { name: "input", type: "float32", dims: [1, side, side, 3], layout: "nhwc" }, outputs), 1).then((s) =>
        s.run({ input: new ort.Tensor("float32", floats, [1, side, side, 3]) }),
      ),
      createSession(
        tfjsGraphToOnnx(model, { name: "input", type: "uint8", dims: [1, side, side, 3], layout: "nhwc", rescale: { scale: 1 / 127.5, offset: -1 } }, outputs),
        1,
      ).then((s) => s.run({ input: new ort.Tensor("uint8", Uint8Array.from(bytes), [1, side, side, 3]) })),
    ]);
    const scores = fromFloats["output0"]?.data as Float32Array;
    // The astronaut's face is there: the comparison is between real activations, not zeros.
    expect(Math.max(...scores)).toBeGreaterThan(1);
    for (const name of Object.keys(fromFloats)) {
      const [a, b] = [fromFloats[name]?.data as Float32Array, fromBytes[name]?.data as Float32Array];
      expect(b.length).toBe(a.length);
      const worst = a.reduce((most, value, i) => Math.max(most, Math.abs(value - (b[i] ?? Number.NaN))), 0);
      expect(worst).toBeLessThan(1e-2);
    }
  });
});
