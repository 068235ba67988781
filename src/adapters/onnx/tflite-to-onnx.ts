import { float16ToFloat32 } from "./float16.ts";
import { OnnxGraph } from "./onnx-graph.ts";
import type { TfliteModel, TfliteTensor } from "./tflite-model.ts";
import { at, type TfliteConversion, writeTfliteOperator } from "./tflite-op-table.ts";

/**
 * Rewrites a float TensorFlow Lite graph as ONNX, operator by operator. Covers the operators of
 * MediaPipe's selfie and hair segmentation models (including their custom
 * Convolution2DTransposeBias, MaxPoolingWithArgmax2D and MaxUnpooling2D) and
 * refuses anything else by name, so a model update cannot silently change the results. Each
 * operator's ONNX node(s) are in tflite-op-table.ts; here the graph is walked in order.
 */
const constData = (t: TfliteTensor): Float32Array | Int32Array | undefined => {
  if (t.data === undefined) return undefined;
  const bytes = t.data;
  if (t.type === "float32") return new Float32Array(bytes.slice().buffer);
  if (t.type === "float16") return float16ToFloat32(bytes);
  if (t.type === "int32") return new Int32Array(bytes.slice().buffer);
  throw new Error(`unsupported constant type ${t.type} (${t.name})`);
};

/** The conversion's shared state: the model's constants, read once, and the tensors written so far. */
const startConversion = (model: TfliteModel): TfliteConversion => {
  const g = new OnnxGraph();
  const constants = new Map<number, Float32Array | Int32Array>();
  const names = new Map<number, string>();
  model.tensors.forEach((t, i) => {
    const data = constData(t);
    if (data !== undefined) constants.set(i, data);
  });

  const tensor = (i: number): TfliteTensor => {
    const t = model.tensors[i];
    if (t === undefined) throw new Error(`tensor ${i} missing`);
    return t;
  };
  const floats = (i: number): Float32Array => {
    const c = constants.get(i);
    if (!(c instanceof Float32Array)) throw new Error(`tensor ${tensor(i).name} is not a float constant`);
    return c;
  };
  const ref = (i: number): string => {
    const known = names.get(i);
    if (known !== undefined) return known;
    const c = constants.get(i);
    if (c === undefined) throw new Error(`tensor ${tensor(i).name} used before it is computed`);
    const name = g.constant(tensor(i).shape, c);
    names.set(i, name);
    return name;
  };
  return { g, model, constants, names, tensor, floats, ref, argmaxSources: new Map() };
};

export const tfliteToOnnx = (model: TfliteModel): Uint8Array => {
  const conversion = startConversion(model);
  const { g, names, tensor, ref } = conversion;
  for (const i of model.inputs) {
    const t = tensor(i);
    names.set(i, g.input(t.name, "float32", t.shape));
  }

  for (const op of model.operators) {
    const out = at(op.outputs, 0);
    const x = at(op.inputs, 0);
    const result = writeTfliteOperator(conversion, op, x, out);
    if (result !== undefined) names.set(out, result);
  }

  for (const i of model.outputs) {
    const t = tensor(i);
    g.node("Identity", [ref(i)], {}, [t.name]);
    g.output(t.name, "float32", t.shape);
  }
  return g.encode();
};
