import { activation, hwioToOihw, toNchw, toNhwc, widenChannels } from "./nhwc-ops.ts";
import type { OnnxGraph } from "./onnx-graph.ts";
import type { TfjsAttr, TfjsConstant, TfjsGraphModel, TfjsNode } from "./tfjs-graph-model.ts";

/**
 * Each TensorFlow.js operator the converter knows (tfjs-graph-to-onnx.ts), as the ONNX node(s) it
 * becomes. An operator not in the table is refused by name.
 */
const ONNX_TYPE: Record<string, number> = { DT_FLOAT: 1, DT_INT32: 6, DT_INT64: 7 };

const text = (a: TfjsAttr | undefined): string => (a?.s === undefined ? "" : Buffer.from(a.s, "base64").toString("utf8"));
const ints = (a: TfjsAttr | undefined): ReadonlyArray<number> => (a?.list?.i ?? []).map(Number);

/** The ONNX graph's input, which stands for the tfjs Placeholder. */
export interface TfjsInputSpec {
  readonly name: string;
  readonly type: "float32" | "int32" | "uint8";
  /**
   * The graph widens the input to float32 as `value × scale + offset` (pixels fed as bytes, the
   * model's own range made inside it, where onnxruntime's vectorised kernels do it).
   */
  readonly rescale?: { readonly scale: number; readonly offset: number };
  /** A name instead of a number leaves that dimension free (a fully convolutional model at any size). */
  readonly dims: ReadonlyArray<number | string>;
  /**
   * "nchw": the caller feeds an image channels first (`dims` [n, c, h, w]); the graph turns it to
   * TensorFlow's NHWC, which onnxruntime cancels against the first convolution's transpose.
   */
  readonly layout?: "nhwc" | "nchw";
}

/** What the operators of one conversion share: the graph being written and the tfjs names it has written. */
export interface TfjsConversion {
  readonly g: OnnxGraph;
  readonly model: TfjsGraphModel;
  readonly input: TfjsInputSpec;
  /** The ONNX name of each tfjs output written so far (`node` or `node:k`). */
  readonly values: Map<string, string>;
  /** Channels of the NHWC tensors whose count the graph shows (from convolution weights onwards). */
  readonly channels: Map<string, number>;
  readonly constant: (name: string) => TfjsConstant;
  /** The ONNX name of a tfjs input, emitting a constant on first use. */
  readonly ref: (input: string) => string;
  readonly scalar: (name: string) => number;
}

export const dataInputs = (n: TfjsNode): ReadonlyArray<string> => (n.input ?? []).filter((i) => !i.startsWith("^"));
const arg = (n: TfjsNode, k: number): string => {
  const v = dataInputs(n)[k];
  if (v === undefined) throw new Error(`${n.name}: input ${k} missing`);
  return v;
};

/** A Pad that is `n`'s only consumer and pads nothing but channels: [its node, before, after]. */
const channelPadAfter = ({ model, constant }: TfjsConversion, n: TfjsNode): readonly [TfjsNode, number, number] | undefined => {
  const consumers = model.nodes.filter((m) => dataInputs(m).some((i) => i === n.name || i === `${n.name}:0`));
  const pad = consumers[0];
  if (consumers.length !== 1 || pad?.op !== "Pad") return undefined;
  const pads = Array.from(constant(arg(pad, 1)).data);
  return pads.length === 8 && pads.slice(0, 6).every((p) => p === 0) ? [pad, pads[6] ?? 0, pads[7] ?? 0] : undefined;
};

const convolution = ({ g, constant, ref, channels }: TfjsConversion, n: TfjsNode, depthwise: boolean): string => {
  const filter = constant(arg(n, 1));
  const [kh, kw, cin, cout] = filter.shape as [number, number, number, number];
  const strides = ints(n.attr?.["strides"]);
  const dilations = ints(n.attr?.["dilations"]);
  const padding = text(n.attr?.["padding"]);
  if (padding !== "SAME" && padding !== "VALID") throw new Error(`${n.name}: padding ${padding}`);
  // Depthwise filters [kh, kw, C, m] are grouped-convolution weights [C·m, 1, kh, kw].
  const weight = depthwise ? hwioToOihw(filter.data as Float32Array, [kh, kw, 1, cin * cout]) : hwioToOihw(filter.data as Float32Array, [kh, kw, cin, cout]);
  const dims: [number, number, number, number] = depthwise ? [cin * cout, 1, kh, kw] : [cout, cin, kh, kw];
  const fusedOps = (n.attr?.["fused_ops"]?.list?.s ?? []).map((s) => Buffer.from(s, "base64").toString("utf8"));
  const inputs = [toNchw(g, ref(arg(n, 0))), g.constant(dims, weight)];
  if (fusedOps[0] === "BiasAdd") inputs.push(ref(arg(n, 2)));
  else if (fusedOps.length > 0) throw new Error(`${n.name}: fused ops ${fusedOps.join(",")}`);
  channels.set(n.name, depthwise ? cin * cout : cout);
  const y = g.node("Conv", inputs, {
    kernel_shape: { ints: [kh, kw] },
    strides: { ints: [strides[1] ?? 1, strides[2] ?? 1] },
    dilations: { ints: [dilations[1] ?? 1, dilations[2] ?? 1] },
    // SAME_UPPER is TensorFlow's SAME: any odd padding goes after.
    auto_pad: { s: padding === "SAME" ? "SAME_UPPER" : "VALID" },
    group: { i: depthwise ? cin : 1 },
  });
  return activation(g, toNhwc(g, y), fusedOps[1] ?? "");
};

const maxPool = (c: TfjsConversion, n: TfjsNode): string => {
  const { g, ref, values, channels } = c;
  const [kh, kw] = ints(n.attr?.["ksize"]).slice(1, 3);
  const strides = ints(n.attr?.["strides"]).slice(1, 3);
  const padding = text(n.attr?.["padding"]);
  const pooled = g.node("MaxPool", [toNchw(g, ref(arg(n, 0)))], {
    kernel_shape: { ints: [kh ?? 1, kw ?? 1] },
    strides: { ints: strides },
    auto_pad: { s: padding === "SAME" ? "SAME_UPPER" : "VALID" },
  });
  const width = channels.get(arg(n, 0).split(":")[0] ?? "");
  if (width === undefined) return toNhwc(g, pooled);
  // The pool, and the Pad of its channels that may follow, as widenChannels explains.
  const [pad, before, after] = channelPadAfter(c, n) ?? [undefined, 0, 0];
  const result = toNhwc(g, widenChannels(g, pooled, width, before, after));
  channels.set(n.name, before + width + after);
  if (pad !== undefined) {
    values.set(pad.name, result);
    channels.set(pad.name, before + width + after);
  }
  return result;
};

const resizeBilinear = ({ g, ref }: TfjsConversion, n: TfjsNode): string => {
  const x = toNchw(g, ref(arg(n, 0)));
  const mode = n.attr?.["align_corners"]?.b ? "align_corners" : n.attr?.["half_pixel_centers"]?.b ? "half_pixel" : "asymmetric";
  const batchChannels = g.node("Slice", [g.node("Shape", [x]), g.int64s([0]), g.int64s([2])]);
  const size = g.node("Cast", [ref(arg(n, 1))], { to: { i: 7 } });
  const sizes = g.node("Concat", [batchChannels, size], { axis: { i: 0 } });
  return toNhwc(g, g.node("Resize", [x, "", "", sizes], { mode: { s: "linear" }, coordinate_transformation_mode: { s: mode } }));
};

/** The graph's input, widened and turned to NHWC as the input spec asks. */
const placeholder = ({ g, input, values }: TfjsConversion, n: TfjsNode): undefined => {
  const fed = g.input(input.name, input.type, input.dims);
  const { scale, offset } = input.rescale ?? {};
  const real =
    scale === undefined ? fed : g.node("Add", [g.node("Mul", [g.node("Cast", [fed], { to: { i: 1 } }), g.floats([scale])]), g.floats([offset ?? 0])]);
  values.set(n.name, input.layout === "nchw" ? toNhwc(g, real) : real);
  return undefined;
};

const unpack = ({ g, ref, values }: TfjsConversion, n: TfjsNode): undefined => {
  const axis = Number(n.attr?.["axis"]?.i ?? 0);
  const count = Number(n.attr?.["num"]?.i ?? 1);
  const parts = count === 1 ? [ref(arg(n, 0))] : g.nodeOutputs("Split", [ref(arg(n, 0))], { axis: { i: axis } }, count);
  parts.forEach((part, k) => values.set(k === 0 ? n.name : `${n.name}:${k}`, g.node("Squeeze", [part, g.int64s([axis])])));
  return undefined;
};

const pack = ({ g, ref, values }: TfjsConversion, n: TfjsNode): undefined => {
  const axis = Number(n.attr?.["axis"]?.i ?? 0);
  const parts = dataInputs(n).map((i) => g.node("Unsqueeze", [ref(i), g.int64s([axis])]));
  values.set(n.name, g.node("Concat", parts, { axis: { i: axis } }));
  return undefined;
};

const binaryNode = ({ g, ref }: TfjsConversion, n: TfjsNode, op: string): string => g.node(op, [ref(arg(n, 0)), ref(arg(n, 1))]);
const binary =
  (op: string): TfjsOperator =>
  (c, n) =>
    binaryNode(c, n, op);

/**
 * Writes one tfjs node: returns its ONNX output, or undefined where it wrote its outputs itself
 * (several, or none).
 */
type TfjsOperator = (c: TfjsConversion, n: TfjsNode) => string | undefined;

const TFJS_OPERATORS: Readonly<Record<string, TfjsOperator>> = {
  Const: () => undefined,
  Placeholder: placeholder,
  Unpack: unpack,
  Pack: pack,
  Cast: ({ g, ref }, n) => {
    const to = ONNX_TYPE[n.attr?.["DstT"]?.type ?? ""];
    if (to === undefined) throw new Error(`${n.name}: cast to ${n.attr?.["DstT"]?.type}`);
    return g.node("Cast", [ref(arg(n, 0))], { to: { i: to } });
  },
  ExpandDims: ({ g, ref, scalar }, n) => g.node("Unsqueeze", [ref(arg(n, 0)), g.int64s([scalar(arg(n, 1))])]),
  Squeeze: ({ g, ref }, n) => g.node("Squeeze", [ref(arg(n, 0)), g.int64s(ints(n.attr?.["squeeze_dims"]))]),
  Identity: ({ g, ref }, n) => g.node("Identity", [ref(arg(n, 0))]),
  AddV2: binary("Add"),
  Add: binary("Add"),
  Sub: binary("Sub"),
  Mul: binary("Mul"),
  RealDiv: binary("Div"),
  // Integer Div truncates; MoveNet divides non-negative flat indices, where that is the floor.
  FloorDiv: binary("Div"),
  SquaredDifference: (c, n) => {
    const d = binaryNode(c, n, "Sub");
    return c.g.node("Mul", [d, d]);
  },
  Sigmoid: ({ g, ref }, n) => g.node(n.op, [ref(arg(n, 0))]),
  Sqrt: ({ g, ref }, n) => g.node(n.op, [ref(arg(n, 0))]),
  Relu: ({ g, ref }, n) => g.node(n.op, [ref(arg(n, 0))]),
  Relu6: ({ g, ref }, n) => activation(g, ref(arg(n, 0)), "Relu6"),
  _FusedConv2D: (c, n) => convolution(c, n, false),
  FusedDepthwiseConv2dNative: (c, n) => convolution(c, n, true),
  DepthwiseConv2dNative: (c, n) => convolution(c, n, true),
  ResizeBilinear: resizeBilinear,
  Reshape: ({ g, ref }, n) => g.node("Reshape", [ref(arg(n, 0)), g.node("Cast", [ref(arg(n, 1))], { to: { i: 7 } })]),
  ArgMax: ({ g, ref, scalar }, n) => {
    const index = g.node("ArgMax", [ref(arg(n, 0))], { axis: { i: scalar(arg(n, 1)) }, keepdims: { i: 0 } });
    return g.node("Cast", [index], { to: { i: ONNX_TYPE[n.attr?.["output_type"]?.type ?? "DT_INT64"] ?? 7 } });
  },
  GatherNd: ({ g, ref }, n) => g.node("GatherND", [ref(arg(n, 0)), g.node("Cast", [ref(arg(n, 1))], { to: { i: 7 } })]),
  MaxPool: maxPool,
  Pad: ({ g, ref, constant }, n) => {
    // TensorFlow pads as [[before, after] per axis]; ONNX wants all befores, then all afters.
    const pads = Array.from(constant(arg(n, 1)).data);
    const rank = pads.length / 2;
    const onnxPads = [...Array.from({ length: rank }, (_, k) => pads[2 * k] ?? 0), ...Array.from({ length: rank }, (_, k) => pads[2 * k + 1] ?? 0)];
    return g.node("Pad", [ref(arg(n, 0)), g.int64s(onnxPads)]);
  },
  ConcatV2: ({ g, ref, scalar }, n) => {
    const inputs = dataInputs(n);
    const axis = scalar(inputs[inputs.length - 1] ?? "");
    return g.node("Concat", inputs.slice(0, -1).map(ref), { axis: { i: axis } });
  },
};

/** Writes `n` into the conversion's graph (returns as TfjsOperator does). */
export const writeTfjsNode = (c: TfjsConversion, n: TfjsNode): string | undefined => {
  const operator = Object.hasOwn(TFJS_OPERATORS, n.op) ? TFJS_OPERATORS[n.op] : undefined;
  if (operator === undefined) throw new Error(`unsupported TensorFlow.js operator ${n.op} (${n.name})`);
  return operator(c, n);
};
