import { activation, hwioToOihw, toNchw, toNhwc, widenChannels } from "./nhwc-ops.ts";
import { OnnxGraph } from "./onnx-graph.ts";
import type { TfjsAttr, TfjsGraphModel, TfjsNode } from "./tfjs-graph-model.ts";

/**
 * Rewrites a TensorFlow.js graph model as ONNX. Covers the operators of MoveNet (a MobileNetV2
 * CenterNet with its keypoint decoding inside the graph) and BlazeFace (max pools, channel
 * padding), and refuses others by name.
 */
const ONNX_TYPE: Record<string, number> = { DT_FLOAT: 1, DT_INT32: 6, DT_INT64: 7 };

const text = (a: TfjsAttr | undefined): string => (a?.s === undefined ? "" : Buffer.from(a.s, "base64").toString("utf8"));
const ints = (a: TfjsAttr | undefined): ReadonlyArray<number> => (a?.list?.i ?? []).map(Number);

/** Operators whose output has their first input's channels. */
const SAME_CHANNELS = new Set(["Relu", "Relu6", "AddV2", "Add", "Sigmoid", "Identity"]);

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

/**
 * `outputNames`: one tfjs node, the ONNX output "output"; several, "output0", "output1", … in
 * that order.
 */
export const tfjsGraphToOnnx = (model: TfjsGraphModel, input: TfjsInputSpec, outputNames: string | ReadonlyArray<string>): Uint8Array => {
  const g = new OnnxGraph();
  const values = new Map<string, string>();
  /** Channels of the NHWC tensors whose count the graph shows (from convolution weights onwards). */
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
  const dataInputs = (n: TfjsNode): ReadonlyArray<string> => (n.input ?? []).filter((i) => !i.startsWith("^"));
  const arg = (n: TfjsNode, k: number): string => {
    const v = dataInputs(n)[k];
    if (v === undefined) throw new Error(`${n.name}: input ${k} missing`);
    return v;
  };
  /** A Pad that is `n`'s only consumer and pads nothing but channels: [its node, before, after]. */
  const channelPadAfter = (n: TfjsNode): readonly [TfjsNode, number, number] | undefined => {
    const consumers = model.nodes.filter((m) => dataInputs(m).some((i) => i === n.name || i === `${n.name}:0`));
    const pad = consumers[0];
    if (consumers.length !== 1 || pad?.op !== "Pad") return undefined;
    const pads = Array.from(constant(arg(pad, 1)).data);
    return pads.length === 8 && pads.slice(0, 6).every((p) => p === 0) ? [pad, pads[6] ?? 0, pads[7] ?? 0] : undefined;
  };

  const convolution = (n: TfjsNode, depthwise: boolean): string => {
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

  for (const n of model.nodes) {
    // Already written by the operator before it (a channel Pad after a max pool).
    if (values.has(n.name)) continue;
    const binary = (op: string) => g.node(op, [ref(arg(n, 0)), ref(arg(n, 1))]);
    switch (n.op) {
      case "Const":
        continue;
      case "Placeholder": {
        const fed = g.input(input.name, input.type, input.dims);
        const { scale, offset } = input.rescale ?? {};
        const real =
          scale === undefined ? fed : g.node("Add", [g.node("Mul", [g.node("Cast", [fed], { to: { i: 1 } }), g.floats([scale])]), g.floats([offset ?? 0])]);
        values.set(n.name, input.layout === "nchw" ? toNhwc(g, real) : real);
        continue;
      }
      case "Unpack": {
        const axis = Number(n.attr?.["axis"]?.i ?? 0);
        const count = Number(n.attr?.["num"]?.i ?? 1);
        const parts = count === 1 ? [ref(arg(n, 0))] : g.nodeOutputs("Split", [ref(arg(n, 0))], { axis: { i: axis } }, count);
        parts.forEach((part, k) => values.set(k === 0 ? n.name : `${n.name}:${k}`, g.node("Squeeze", [part, g.int64s([axis])])));
        continue;
      }
      case "Pack": {
        const axis = Number(n.attr?.["axis"]?.i ?? 0);
        const parts = dataInputs(n).map((i) => g.node("Unsqueeze", [ref(i), g.int64s([axis])]));
        values.set(n.name, g.node("Concat", parts, { axis: { i: axis } }));
        continue;
      }
      default:
        break;
    }
    let result: string;
    switch (n.op) {
      case "Cast": {
        const to = ONNX_TYPE[n.attr?.["DstT"]?.type ?? ""];
        if (to === undefined) throw new Error(`${n.name}: cast to ${n.attr?.["DstT"]?.type}`);
        result = g.node("Cast", [ref(arg(n, 0))], { to: { i: to } });
        break;
      }
      case "ExpandDims":
        result = g.node("Unsqueeze", [ref(arg(n, 0)), g.int64s([scalar(arg(n, 1))])]);
        break;
      case "Squeeze":
        result = g.node("Squeeze", [ref(arg(n, 0)), g.int64s(ints(n.attr?.["squeeze_dims"]))]);
        break;
      case "Identity":
        result = g.node("Identity", [ref(arg(n, 0))]);
        break;
      case "AddV2":
      case "Add":
        result = binary("Add");
        break;
      case "Sub":
        result = binary("Sub");
        break;
      case "Mul":
        result = binary("Mul");
        break;
      case "RealDiv":
        result = binary("Div");
        break;
      case "FloorDiv":
        // Integer Div truncates; MoveNet divides non-negative flat indices, where that is the floor.
        result = binary("Div");
        break;
      case "SquaredDifference": {
        const d = binary("Sub");
        result = g.node("Mul", [d, d]);
        break;
      }
      case "Sigmoid":
      case "Sqrt":
      case "Relu":
        result = g.node(n.op, [ref(arg(n, 0))]);
        break;
      case "Relu6":
        result = activation(g, ref(arg(n, 0)), "Relu6");
        break;
      case "_FusedConv2D":
        result = convolution(n, false);
        break;
      case "FusedDepthwiseConv2dNative":
      case "DepthwiseConv2dNative":
        result = convolution(n, true);
        break;
      case "ResizeBilinear": {
        const x = toNchw(g, ref(arg(n, 0)));
        const mode = n.attr?.["align_corners"]?.b ? "align_corners" : n.attr?.["half_pixel_centers"]?.b ? "half_pixel" : "asymmetric";
        const batchChannels = g.node("Slice", [g.node("Shape", [x]), g.int64s([0]), g.int64s([2])]);
        const size = g.node("Cast", [ref(arg(n, 1))], { to: { i: 7 } });
        const sizes = g.node("Concat", [batchChannels, size], { axis: { i: 0 } });
        result = toNhwc(g, g.node("Resize", [x, "", "", sizes], { mode: { s: "linear" }, coordinate_transformation_mode: { s: mode } }));
        break;
      }
      case "Reshape":
        result = g.node("Reshape", [ref(arg(n, 0)), g.node("Cast", [ref(arg(n, 1))], { to: { i: 7 } })]);
        break;
      case "ArgMax": {
        const index = g.node("ArgMax", [ref(arg(n, 0))], { axis: { i: scalar(arg(n, 1)) }, keepdims: { i: 0 } });
        result = g.node("Cast", [index], { to: { i: ONNX_TYPE[n.attr?.["output_type"]?.type ?? "DT_INT64"] ?? 7 } });
        break;
      }
      case "GatherNd":
        result = g.node("GatherND", [ref(arg(n, 0)), g.node("Cast", [ref(arg(n, 1))], { to: { i: 7 } })]);
        break;
      case "MaxPool": {
        const [kh, kw] = ints(n.attr?.["ksize"]).slice(1, 3);
        const strides = ints(n.attr?.["strides"]).slice(1, 3);
        const padding = text(n.attr?.["padding"]);
        const pooled = g.node("MaxPool", [toNchw(g, ref(arg(n, 0)))], {
          kernel_shape: { ints: [kh ?? 1, kw ?? 1] },
          strides: { ints: strides },
          auto_pad: { s: padding === "SAME" ? "SAME_UPPER" : "VALID" },
        });
        const width = channels.get(arg(n, 0).split(":")[0] ?? "");
        if (width === undefined) {
          result = toNhwc(g, pooled);
          break;
        }
        // The pool, and the Pad of its channels that may follow, as widenChannels explains.
        const [pad, before, after] = channelPadAfter(n) ?? [undefined, 0, 0];
        result = toNhwc(g, widenChannels(g, pooled, width, before, after));
        channels.set(n.name, before + width + after);
        if (pad !== undefined) {
          values.set(pad.name, result);
          channels.set(pad.name, before + width + after);
        }
        break;
      }
      case "Pad": {
        // TensorFlow pads as [[before, after] per axis]; ONNX wants all befores, then all afters.
        const pads = Array.from(constant(arg(n, 1)).data);
        const rank = pads.length / 2;
        const onnxPads = [...Array.from({ length: rank }, (_, k) => pads[2 * k] ?? 0), ...Array.from({ length: rank }, (_, k) => pads[2 * k + 1] ?? 0)];
        result = g.node("Pad", [ref(arg(n, 0)), g.int64s(onnxPads)]);
        break;
      }
      case "ConcatV2": {
        const inputs = dataInputs(n);
        const axis = scalar(inputs[inputs.length - 1] ?? "");
        result = g.node("Concat", inputs.slice(0, -1).map(ref), { axis: { i: axis } });
        break;
      }
      default:
        throw new Error(`unsupported TensorFlow.js operator ${n.op} (${n.name})`);
    }
    const first = dataInputs(n)[0]?.split(":")[0];
    const same = first === undefined || !SAME_CHANNELS.has(n.op) ? undefined : channels.get(first);
    if (same !== undefined && !channels.has(n.name)) channels.set(n.name, same);
    values.set(n.name, result);
  }

  const outputs = typeof outputNames === "string" ? [[outputNames, "output"] as const] : outputNames.map((name, k) => [name, `output${k}`] as const);
  for (const [name, onnxName] of outputs) {
    g.node("Identity", [ref(name)], {}, [onnxName]);
    g.output(onnxName, "float32");
  }
  return g.encode();
};
