import { OnnxGraph } from "./onnx-graph.ts";
import type { TfjsGraphModel, TfjsNode } from "./tfjs-graph-model.ts";
import { dataInputs, type TfjsConversion, type TfjsInputSpec, writeTfjsNode } from "./tfjs-op-table.ts";

/**
 * Rewrites a TensorFlow.js graph model as ONNX. Covers the operators of MoveNet (a MobileNetV2
 * CenterNet with its keypoint decoding inside the graph) and BlazeFace (max pools, channel
 * padding), and refuses others by name. Each operator's ONNX node(s) are in tfjs-op-table.ts; here
 * the graph is walked in order and its outputs named.
 */

/** Operators whose output has their first input's channels. */
const SAME_CHANNELS = new Set(["Relu", "Relu6", "AddV2", "Add", "Sigmoid", "Identity"]);

/** The conversion's shared state: the tfjs names written so far and their constants, emitted on first use. */
const startConversion = (model: TfjsGraphModel, input: TfjsInputSpec): TfjsConversion => {
  const g = new OnnxGraph();
  const values = new Map<string, string>();
  const channels = new Map<string, number>();

  const constant = (name: string) => {
    const c = model.constants.get(name);
    if (c === undefined) throw new Error(`constant ${name} not in the weights`);
    return c;
  };
  const ref = (input: string): string => {
    const [base, index] = input.split(":") as [string, string | undefined];
    const key = index === undefined || index === "0" ? base : `${base}:${index}`;
    const known = values.get(key);
    if (known !== undefined) return known;
    const c = constant(base);
    const name = g.constant(c.shape, c.data);
    values.set(base, name);
    return name;
  };
  const scalar = (name: string): number => {
    const v = constant(name).data[0];
    if (v === undefined) throw new Error(`constant ${name} is empty`);
    return v;
  };
  return { g, model, input, values, channels, constant, ref, scalar };
};

/** A node of SAME_CHANNELS has its first input's channel count, where that is known. */
const keepChannels = ({ channels }: TfjsConversion, n: TfjsNode): void => {
  const first = dataInputs(n)[0]?.split(":")[0];
  const same = first === undefined || !SAME_CHANNELS.has(n.op) ? undefined : channels.get(first);
  if (same !== undefined && !channels.has(n.name)) channels.set(n.name, same);
};

/** The chosen tfjs nodes as the model's float32 outputs. */
const writeOutputs = ({ g, ref }: TfjsConversion, outputNames: string | ReadonlyArray<string>): void => {
  const outputs = typeof outputNames === "string" ? [[outputNames, "output"] as const] : outputNames.map((name, k) => [name, `output${k}`] as const);
  for (const [name, onnxName] of outputs) {
    g.node("Identity", [ref(name)], {}, [onnxName]);
    g.output(onnxName, "float32");
  }
};

/**
 * `outputNames`: one tfjs node, the ONNX output "output"; several, "output0", "output1", … in
 * that order.
 */
export const tfjsGraphToOnnx = (model: TfjsGraphModel, input: TfjsInputSpec, outputNames: string | ReadonlyArray<string>): Uint8Array => {
  const conversion = startConversion(model, input);
  for (const n of model.nodes) {
    // Already written by the operator before it (a channel Pad after a max pool).
    if (conversion.values.has(n.name)) continue;
    const result = writeTfjsNode(conversion, n);
    if (result === undefined) continue;
    keepChannels(conversion, n);
    conversion.values.set(n.name, result);
  }
  writeOutputs(conversion, outputNames);
  return conversion.g.encode();
};
