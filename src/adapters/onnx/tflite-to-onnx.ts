import { float16ToFloat32 } from "./float16.ts";
import { activation, conv2d, ohwiToOihw, samePads, toNchw, toNhwc } from "./nhwc-ops.ts";
import { OnnxGraph } from "./onnx-graph.ts";
import type { TfliteModel, TfliteOperator, TfliteTensor } from "./tflite-model.ts";

/**
 * Rewrites a float TensorFlow Lite graph as ONNX, operator by operator. Covers the operators of
 * MediaPipe's selfie segmentation model (including its custom Convolution2DTransposeBias) and
 * refuses anything else by name, so a model update cannot silently change the results.
 */
const ACTIVATIONS = ["NONE", "RELU", "RELU_N1_TO_1", "RELU6", "TANH"];

const constData = (t: TfliteTensor): Float32Array | Int32Array | undefined => {
  if (t.data === undefined) return undefined;
  const bytes = t.data;
  if (t.type === "float32") return new Float32Array(bytes.slice().buffer);
  if (t.type === "float16") return float16ToFloat32(bytes);
  if (t.type === "int32") return new Int32Array(bytes.slice().buffer);
  throw new Error(`unsupported constant type ${t.type} (${t.name})`);
};

export const tfliteToOnnx = (model: TfliteModel): Uint8Array => {
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
  /** The ONNX name of a tensor, emitting constants on first use. */
  const ref = (i: number): string => {
    const known = names.get(i);
    if (known !== undefined) return known;
    const c = constants.get(i);
    if (c === undefined) throw new Error(`tensor ${tensor(i).name} used before it is computed`);
    const name = g.constant(tensor(i).shape, c);
    names.set(i, name);
    return name;
  };
  const at = (list: ReadonlyArray<number>, k: number): number => {
    const v = list[k];
    if (v === undefined) throw new Error("operator input missing");
    return v;
  };
  const fused = (op: TfliteOperator, field: number): string => ACTIVATIONS[op.options?.int8(field) ?? 0] ?? "NONE";

  for (const i of model.inputs) {
    const t = tensor(i);
    names.set(i, g.input(t.name, "float32", t.shape));
  }

  for (const op of model.operators) {
    const out = at(op.outputs, 0);
    const x = at(op.inputs, 0);
    const o = op.options;
    let result: string;
    switch (op.op) {
      case "DEQUANTIZE":
        // float16 weights were widened when read: the dequantized tensor is that same constant.
        constants.set(out, floats(x));
        continue;
      case "CONV_2D": {
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
        result = activation(g, y, fused(op, 3));
        break;
      }
      case "DEPTHWISE_CONV_2D": {
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
        result = activation(g, y, fused(op, 4));
        break;
      }
      case "AVERAGE_POOL_2D":
      case "MAX_POOL_2D": {
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
        result = activation(g, toNhwc(g, y), fused(op, 5));
        break;
      }
      case "ADD":
      case "MUL":
      case "SUB":
      case "DIV": {
        const onnxOp = { ADD: "Add", MUL: "Mul", SUB: "Sub", DIV: "Div" }[op.op] as string;
        result = activation(g, g.node(onnxOp, [ref(x), ref(at(op.inputs, 1))]), fused(op, 0));
        break;
      }
      case "RELU":
        result = g.node("Relu", [ref(x)]);
        break;
      case "RELU6":
        result = activation(g, ref(x), "RELU6");
        break;
      case "LOGISTIC":
        result = g.node("Sigmoid", [ref(x)]);
        break;
      case "TANH":
        result = g.node("Tanh", [ref(x)]);
        break;
      case "HARD_SWISH":
        result = g.node("HardSwish", [ref(x)]);
        break;
      case "RESIZE_BILINEAR": {
        // ResizeBilinearOptions: 2 align_corners, 3 half_pixel_centers.
        const [n, h, w, c] = tensor(out).shape as [number, number, number, number];
        const mode = o?.bool(2) ? "align_corners" : o?.bool(3) ? "half_pixel" : "asymmetric";
        const y = g.node("Resize", [toNchw(g, ref(x)), "", "", g.int64s([n, c, h, w])], {
          mode: { s: "linear" },
          coordinate_transformation_mode: { s: mode },
        });
        result = toNhwc(g, y);
        break;
      }
      case "Convolution2DTransposeBias": {
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
        // ONNX ConvTranspose weights are [in, out, kh, kw].
        const src = floats(w);
        const weight = new Float32Array(src.length);
        for (let oc = 0; oc < cout; oc++)
          for (let y = 0; y < kh; y++)
            for (let xx = 0; xx < kw; xx++)
              for (let ic = 0; ic < cin; ic++) weight[((ic * cout + oc) * kh + y) * kw + xx] = src[((oc * kh + y) * kw + xx) * cin + ic]!;
        const y = g.node("ConvTranspose", [toNchw(g, ref(x)), g.constant([cin, cout, kh, kw], weight), g.constant([cout], floats(at(op.inputs, 2)))], {
          kernel_shape: { ints: [kh, kw] },
          strides: { ints: [strideH, strideW] },
          pads: { ints: [Math.floor(padH / 2), Math.floor(padW / 2), padH - Math.floor(padH / 2), padW - Math.floor(padW / 2)] },
        });
        result = toNhwc(g, y);
        break;
      }
      default:
        throw new Error(`unsupported TensorFlow Lite operator ${op.op}`);
    }
    names.set(out, result);
  }

  for (const i of model.outputs) {
    const t = tensor(i);
    g.node("Identity", [ref(i)], {}, [t.name]);
    g.output(t.name, "float32", t.shape);
  }
  return g.encode();
};

/** Depthwise filters [1, kh, kw, C] become grouped-convolution weights [C, 1, kh, kw]. */
const depthwiseToOihw = (w: Float32Array, kh: number, kw: number, channels: number): Float32Array => {
  const out = new Float32Array(w.length);
  for (let y = 0; y < kh; y++) for (let x = 0; x < kw; x++) for (let c = 0; c < channels; c++) out[(c * kh + y) * kw + x] = w[(y * kw + x) * channels + c]!;
  return out;
};
