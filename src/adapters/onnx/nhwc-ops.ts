import type { OnnxGraph } from "./onnx-graph.ts";

/**
 * TensorFlow models compute in NHWC; ONNX convolutions, pools and resizes want NCHW. The
 * converters keep every tensor in its TensorFlow layout and wrap only those operators in a pair of
 * transposes, which onnxruntime's transpose optimizer then cancels between neighbours. That keeps
 * every axis-dependent operator (reshape, concat, gather) exactly as the source model wrote it.
 */
export const toNchw = (g: OnnxGraph, x: string): string => g.node("Transpose", [x], { perm: { ints: [0, 3, 1, 2] } });
export const toNhwc = (g: OnnxGraph, x: string): string => g.node("Transpose", [x], { perm: { ints: [0, 2, 3, 1] } });

/** TensorFlow "SAME" padding: the output is ceil(in / stride); any odd extra goes after. */
export const samePads = (input: number, kernel: number, stride: number, dilation: number): [number, number] => {
  const out = Math.ceil(input / stride);
  const total = Math.max((out - 1) * stride + (kernel - 1) * dilation + 1 - input, 0);
  return [Math.floor(total / 2), total - Math.floor(total / 2)];
};

export interface Conv2dSpec {
  /** ONNX weight layout [out, in/group, kh, kw]. */
  readonly weight: Float32Array;
  readonly weightDims: readonly [number, number, number, number];
  readonly bias: Float32Array | undefined;
  readonly strides: readonly [number, number];
  readonly dilations: readonly [number, number];
  readonly same: boolean;
  readonly group: number;
  /** Spatial size of the input [h, w], to resolve SAME padding. */
  readonly inputSize: readonly [number, number];
}

/** A 2-D convolution on an NHWC tensor; returns an NHWC tensor. */
export const conv2d = (g: OnnxGraph, x: string, spec: Conv2dSpec): string => {
  const [, , kh, kw] = spec.weightDims;
  const [padTop, padBottom] = spec.same ? samePads(spec.inputSize[0], kh, spec.strides[0], spec.dilations[0]) : [0, 0];
  const [padLeft, padRight] = spec.same ? samePads(spec.inputSize[1], kw, spec.strides[1], spec.dilations[1]) : [0, 0];
  const inputs = [toNchw(g, x), g.constant(spec.weightDims, spec.weight)];
  if (spec.bias !== undefined) inputs.push(g.constant([spec.bias.length], spec.bias));
  const y = g.node("Conv", inputs, {
    kernel_shape: { ints: [kh, kw] },
    strides: { ints: [...spec.strides] },
    dilations: { ints: [...spec.dilations] },
    pads: { ints: [padTop, padLeft, padBottom, padRight] },
    group: { i: spec.group },
  });
  return toNhwc(g, y);
};

/**
 * A 1×1 convolution that copies `channels` NCHW channels into a tensor `before + channels + after`
 * wide, the rest zero: a channel Pad, or (no padding) an identity. After a max pool on a residual
 * path (BlazeFace's strided blocks) it keeps that path in onnxruntime's blocked NCHWc layout: the
 * optimizer blocks no pool of a channel count off its block size (24 channels on AVX-512) and no
 * Pad, and every block after either ran in NCHW, reordered to and from NCHWc around each
 * convolution pair (30 reorders in BlazeFace, ~15 % of its CPU).
 */
export const widenChannels = (g: OnnxGraph, x: string, channels: number, before: number, after: number): string => {
  const wide = before + channels + after;
  const weight = new Float32Array(wide * channels);
  for (let c = 0; c < channels; c++) weight[(before + c) * channels + c] = 1;
  return g.node("Conv", [x, g.constant([wide, channels, 1, 1], weight)], { kernel_shape: { ints: [1, 1] } });
};

type Dims4 = readonly [number, number, number, number];

/** Reorders TensorFlow filter weights [kh, kw, in, out] (tfjs) to ONNX [out, in, kh, kw]. */
export const hwioToOihw = (w: Float32Array, [kh, kw, cin, cout]: Dims4): Float32Array => {
  const out = new Float32Array(w.length);
  for (let y = 0; y < kh; y++)
    for (let x = 0; x < kw; x++)
      for (let i = 0; i < cin; i++) for (let o = 0; o < cout; o++) out[((o * cin + i) * kh + y) * kw + x] = w[((y * kw + x) * cin + i) * cout + o]!;
  return out;
};

/** Reorders TensorFlow Lite filter weights [out, kh, kw, in] to ONNX [out, in, kh, kw]. */
export const ohwiToOihw = (w: Float32Array, [cout, kh, kw, cin]: Dims4): Float32Array => {
  const out = new Float32Array(w.length);
  for (let o = 0; o < cout; o++)
    for (let y = 0; y < kh; y++)
      for (let x = 0; x < kw; x++) for (let i = 0; i < cin; i++) out[((o * cin + i) * kh + y) * kw + x] = w[((o * kh + y) * kw + x) * cin + i]!;
  return out;
};

/** Applies a fused activation by its TensorFlow name. */
export const activation = (g: OnnxGraph, x: string, name: string): string => {
  switch (name) {
    case "":
    case "NONE":
      return x;
    case "Relu":
    case "RELU":
      return g.node("Relu", [x]);
    case "Relu6":
    case "RELU6":
      return g.node("Clip", [x, g.floats([0], []), g.floats([6], [])]);
    case "RELU_N1_TO_1":
      return g.node("Clip", [x, g.floats([-1], []), g.floats([1], [])]);
    case "TANH":
      return g.node("Tanh", [x]);
    default:
      throw new Error(`unsupported fused activation ${name}`);
  }
};
