import { activation, conv2d, ohwiToOihw, samePads, toNchw, toNhwc } from "./nhwc-ops.ts";
import type { OnnxGraph } from "./onnx-graph.ts";
import type { TfliteModel, TfliteOperator, TfliteTensor } from "./tflite-model.ts";

/**
 * Each TensorFlow Lite operator the converter knows (tflite-to-onnx.ts), as the ONNX node(s) it
 * becomes. An operator not in the table is refused by name.
 */
const ACTIVATIONS = ["NONE", "RELU", "RELU_N1_TO_1", "RELU6", "TANH"];

/** What the operators of one conversion share: the graph being written and the tensors it has written. */
export interface TfliteConversion {
  readonly g: OnnxGraph;
  readonly model: TfliteModel;
  /** Constant tensors by index (float16 widened to float32). */
  readonly constants: Map<number, Float32Array | Int32Array>;
  /** The ONNX name of each tensor written so far. */
  readonly names: Map<number, string>;
  readonly tensor: (i: number) => TfliteTensor;
  readonly floats: (i: number) => Float32Array;
  /** The ONNX name of a tensor, emitting constants on first use. */
  readonly ref: (i: number) => string;
  /**
   * MaxPoolingWithArgmax2D's indices tensors, each with the pooled input's shape: ONNX's indices
   * are flat positions in that input, so only an unpooling back to that very shape may read them.
   */
  readonly argmaxSources: Map<number, ReadonlyArray<number>>;
}

export const at = (list: ReadonlyArray<number>, k: number): number => {
  const v = list[k];
  if (v === undefined) throw new Error("operator input missing");
  return v;
};
const fused = (op: TfliteOperator, field: number): string => ACTIVATIONS[op.options?.int8(field) ?? 0] ?? "NONE";

/** One operator, its first input `x` and its output `out`. */
interface Step {
  readonly op: TfliteOperator;
  readonly x: number;
  readonly out: number;
}

const conv = ({ g, tensor, floats, ref }: TfliteConversion, { op, x }: Step): string => {
  const o = op.options;
  // Conv2DOptions: 0 padding, 1 stride_w, 2 stride_h, 3 activation, 4 dilation_w, 5 dilation_h.
  const w = at(op.inputs, 1);
  const [cout, kh, kw, cin] = tensor(w).shape as [number, number, number, number];
  const shape = tensor(x).shape;
  const y = conv2d(g, ref(x), {
    weight: ohwiToOihw(floats(w), [cout, kh, kw, cin]),
    weightDims: [cout, cin, kh, kw],
    bias: op.inputs[2] !== undefined && op.inputs[2] >= 0 ? floats(op.inputs[2]) : undefined,
    strides: [o?.int32(2, 1) ?? 1, o?.int32(1, 1) ?? 1],
    dilations: [o?.int32(5, 1) ?? 1, o?.int32(4, 1) ?? 1],
    same: (o?.int8(0) ?? 0) === 0,
    group: 1,
    inputSize: [shape[1] ?? 0, shape[2] ?? 0],
  });
  return activation(g, y, fused(op, 3));
};

const depthwiseConv = ({ g, tensor, floats, ref }: TfliteConversion, { op, x }: Step): string => {
  const o = op.options;
  // DepthwiseConv2DOptions: 0 padding, 1 stride_w, 2 stride_h, 3 multiplier, 4 activation, 5/6 dilation.
  const w = at(op.inputs, 1);
  const [, kh, kw, channels] = tensor(w).shape as [number, number, number, number];
  const cin = tensor(x).shape[3] ?? 0;
  const shape = tensor(x).shape;
  const y = conv2d(g, ref(x), {
    weight: depthwiseToOihw(floats(w), kh, kw, channels),
    weightDims: [channels, 1, kh, kw],
    bias: op.inputs[2] !== undefined && op.inputs[2] >= 0 ? floats(op.inputs[2]) : undefined,
    strides: [o?.int32(2, 1) ?? 1, o?.int32(1, 1) ?? 1],
    dilations: [o?.int32(6, 1) ?? 1, o?.int32(5, 1) ?? 1],
    same: (o?.int8(0) ?? 0) === 0,
    group: cin,
    inputSize: [shape[1] ?? 0, shape[2] ?? 0],
  });
  return activation(g, y, fused(op, 4));
};

const pool = ({ g, tensor, ref }: TfliteConversion, { op, x }: Step): string => {
  const o = op.options;
  // Pool2DOptions: 0 padding, 1 stride_w, 2 stride_h, 3 filter_w, 4 filter_h, 5 activation.
  const [, h, w] = tensor(x).shape as [number, number, number];
  const fw = o?.int32(3) ?? 1;
  const fh = o?.int32(4) ?? 1;
  const global = fw === w && fh === h;
  const kind = op.op === "AVERAGE_POOL_2D" ? "Average" : "Max";
  let y: string;
  if (global) y = g.node(`Global${kind}Pool`, [toNchw(g, ref(x))]);
  else {
    const sw = o?.int32(1, 1) ?? 1;
    const sh = o?.int32(2, 1) ?? 1;
    const same = (o?.int8(0) ?? 0) === 0;
    const [pt, pb] = same ? samePads(h, fh, sh, 1) : [0, 0];
    const [pl, pr] = same ? samePads(w, fw, sw, 1) : [0, 0];
    y = g.node(`${kind}Pool`, [toNchw(g, ref(x))], {
      kernel_shape: { ints: [fh, fw] },
      strides: { ints: [sh, sw] },
      pads: { ints: [pt, pl, pb, pr] },
      ...(kind === "Average" ? { count_include_pad: { i: 0 } } : {}),
    });
  }
  return activation(g, toNhwc(g, y), fused(op, 5));
};

const elementwise = ({ g, ref }: TfliteConversion, { op, x }: Step): string => {
  const onnxOp = { ADD: "Add", MUL: "Mul", SUB: "Sub", DIV: "Div" }[op.op] as string;
  return activation(g, g.node(onnxOp, [ref(x), ref(at(op.inputs, 1))]), fused(op, 0));
};

const resizeBilinear = ({ g, tensor, ref }: TfliteConversion, { op, x, out }: Step): string => {
  const o = op.options;
  // ResizeBilinearOptions: 2 align_corners, 3 half_pixel_centers.
  const [n, h, w, c] = tensor(out).shape as [number, number, number, number];
  const mode = o?.bool(2) ? "align_corners" : o?.bool(3) ? "half_pixel" : "asymmetric";
  const y = g.node("Resize", [toNchw(g, ref(x)), "", "", g.int64s([n, c, h, w])], {
    mode: { s: "linear" },
    coordinate_transformation_mode: { s: mode },
  });
  return toNhwc(g, y);
};

const transposeConvolutionBias = ({ g, tensor, floats, ref }: TfliteConversion, { op, x, out }: Step): string => {
  // MediaPipe's custom op: options are TfLiteTransposeConvParams {padding, stride_w, stride_h}.
  if (op.customOptions === undefined) throw new Error("Convolution2DTransposeBias without options");
  const params = new DataView(op.customOptions.slice().buffer);
  const strideW = params.getInt32(4, true);
  const strideH = params.getInt32(8, true);
  const w = at(op.inputs, 1);
  const [cout, kh, kw, cin] = tensor(w).shape as [number, number, number, number];
  const [, inH, inW] = tensor(x).shape as [number, number, number];
  const [, outH, outW] = tensor(out).shape as [number, number, number];
  const padH = (inH - 1) * strideH + kh - outH;
  const padW = (inW - 1) * strideW + kw - outW;
  const weight = ohwiToIohw(floats(w), cout, kh, kw, cin);
  const y = g.node("ConvTranspose", [toNchw(g, ref(x)), g.constant([cin, cout, kh, kw], weight), g.constant([cout], floats(at(op.inputs, 2)))], {
    kernel_shape: { ints: [kh, kw] },
    strides: { ints: [strideH, strideW] },
    pads: { ints: [Math.floor(padH / 2), Math.floor(padW / 2), padH - Math.floor(padH / 2), padW - Math.floor(padW / 2)] },
  });
  return toNhwc(g, y);
};

/** MediaPipe's TfLitePoolParams (custom options): padding (1 same, 2 valid), strides, filter, activation. */
const poolParams = (op: TfliteOperator) => {
  if (op.customOptions === undefined) throw new Error(`${op.op} without options`);
  const params = new DataView(op.customOptions.slice().buffer);
  const int = (k: number) => params.getInt32(4 * k, true);
  return { same: int(0) === 1, strideW: int(1), strideH: int(2), filterW: int(3), filterH: int(4), activation: ACTIVATIONS[int(5)] ?? "NONE" };
};

/**
 * MediaPipe's max pool that also outputs where each maximum was. Its indices are positions within
 * the window; ONNX's MaxPool gives flat positions in the input instead, which MaxUnpool reads the
 * same way, so the pair converts as a pair (the indices feed nothing else in MediaPipe's models).
 */
const maxPoolWithArgmax = ({ g, tensor, ref, names, argmaxSources }: TfliteConversion, { op, x }: Step): string => {
  const p = poolParams(op);
  const shape = tensor(x).shape;
  const [pt, pb] = p.same ? samePads(shape[1] ?? 0, p.filterH, p.strideH, 1) : [0, 0];
  const [pl, pr] = p.same ? samePads(shape[2] ?? 0, p.filterW, p.strideW, 1) : [0, 0];
  const [y, indices] = g.nodeOutputs(
    "MaxPool",
    [toNchw(g, ref(x))],
    { kernel_shape: { ints: [p.filterH, p.filterW] }, strides: { ints: [p.strideH, p.strideW] }, pads: { ints: [pt, pl, pb, pr] } },
    2,
  ) as [string, string];
  const indicesOut = at(op.outputs, 1);
  names.set(indicesOut, indices);
  argmaxSources.set(indicesOut, shape);
  return activation(g, toNhwc(g, y), p.activation);
};

const maxUnpooling = ({ g, tensor, ref, argmaxSources }: TfliteConversion, { op, x, out }: Step): string => {
  const p = poolParams(op);
  const indices = at(op.inputs, 1);
  const [n, h, w, c] = tensor(out).shape as [number, number, number, number];
  const source = argmaxSources.get(indices);
  if (source === undefined || source.join() !== [n, h, w, c].join())
    throw new Error("MaxUnpooling2D whose indices are not from a MaxPoolingWithArgmax2D of its output's shape");
  const y = g.node("MaxUnpool", [toNchw(g, ref(x)), ref(indices), g.int64s([n, c, h, w])], {
    kernel_shape: { ints: [p.filterH, p.filterW] },
    strides: { ints: [p.strideH, p.strideW] },
  });
  return toNhwc(g, y);
};

/** Depthwise filters [1, kh, kw, C] become grouped-convolution weights [C, 1, kh, kw]. */
const depthwiseToOihw = (w: Float32Array, kh: number, kw: number, channels: number): Float32Array => {
  const out = new Float32Array(w.length);
  for (let y = 0; y < kh; y++) for (let x = 0; x < kw; x++) for (let c = 0; c < channels; c++) out[(c * kh + y) * kw + x] = w[(y * kw + x) * channels + c]!;
  return out;
};

/** TensorFlow Lite filter weights [out, kh, kw, in] become ONNX ConvTranspose weights [in, out, kh, kw]. */
const ohwiToIohw = (src: Float32Array, cout: number, kh: number, kw: number, cin: number): Float32Array => {
  const weight = new Float32Array(src.length);
  for (let oc = 0; oc < cout; oc++)
    for (let y = 0; y < kh; y++)
      for (let xx = 0; xx < kw; xx++)
        for (let ic = 0; ic < cin; ic++) weight[((ic * cout + oc) * kh + y) * kw + xx] = src[((oc * kh + y) * kw + xx) * cin + ic]!;
  return weight;
};

/**
 * Writes one operator: returns the ONNX name of its output, or undefined where it wrote none (its
 * output is a constant).
 */
type TfliteOperation = (c: TfliteConversion, step: Step) => string | undefined;

const TFLITE_OPERATORS: Readonly<Record<string, TfliteOperation>> = {
  DEQUANTIZE: ({ constants, floats }, { x, out }) => {
    // float16 weights were widened when read: the dequantized tensor is that same constant.
    constants.set(out, floats(x));
    return undefined;
  },
  CONV_2D: conv,
  DEPTHWISE_CONV_2D: depthwiseConv,
  AVERAGE_POOL_2D: pool,
  MAX_POOL_2D: pool,
  ADD: elementwise,
  MUL: elementwise,
  SUB: elementwise,
  DIV: elementwise,
  RELU: ({ g, ref }, { x }) => g.node("Relu", [ref(x)]),
  // The slope [1, 1, C] broadcasts over the NHWC tensor as it does in TensorFlow Lite.
  PRELU: ({ g, ref }, { op, x }) => g.node("PRelu", [ref(x), ref(at(op.inputs, 1))]),
  // ConcatenationOptions: 0 axis (of the NHWC tensor, which the graph keeps), 1 activation.
  CONCATENATION: ({ g, ref }, { op }) => activation(g, g.node("Concat", op.inputs.map(ref), { axis: { i: op.options?.int32(0) ?? 0 } }), fused(op, 1)),
  RELU6: ({ g, ref }, { x }) => activation(g, ref(x), "RELU6"),
  LOGISTIC: ({ g, ref }, { x }) => g.node("Sigmoid", [ref(x)]),
  TANH: ({ g, ref }, { x }) => g.node("Tanh", [ref(x)]),
  HARD_SWISH: ({ g, ref }, { x }) => g.node("HardSwish", [ref(x)]),
  RESIZE_BILINEAR: resizeBilinear,
  Convolution2DTransposeBias: transposeConvolutionBias,
  MaxPoolingWithArgmax2D: maxPoolWithArgmax,
  MaxUnpooling2D: maxUnpooling,
};

/** Writes `op` into the conversion's graph (returns as TfliteOperation does). */
export const writeTfliteOperator = (c: TfliteConversion, op: TfliteOperator, x: number, out: number): string | undefined => {
  const operation = Object.hasOwn(TFLITE_OPERATORS, op.op) ? TFLITE_OPERATORS[op.op] : undefined;
  if (operation === undefined) throw new Error(`unsupported TensorFlow Lite operator ${op.op}`);
  return operation(c, { op, x, out });
};
