/**
 * Reads a TensorFlow Lite flatbuffer (schema `tflite`, identifier "TFL3") into plain values, so
 * that its graph can be rewritten as ONNX. Only the parts a converter needs are read: the first
 * subgraph's tensors, operators and their builtin options, and the constant buffers.
 */

export type TfliteTensorType = "float32" | "float16" | "int32" | "uint8" | "int64" | "other";

export interface TfliteTensor {
  readonly name: string;
  readonly shape: ReadonlyArray<number>;
  readonly type: TfliteTensorType;
  /** Constant data (little-endian), or undefined for activations. */
  readonly data: Uint8Array | undefined;
}

export interface TfliteOperator {
  /** Builtin operator name (e.g. "CONV_2D"), or the custom code for custom operators. */
  readonly op: string;
  readonly inputs: ReadonlyArray<number>;
  readonly outputs: ReadonlyArray<number>;
  /** The builtin options table, read field by field (see `field`). */
  readonly options: FlatTable | undefined;
  readonly customOptions: Uint8Array | undefined;
}

export interface TfliteModel {
  readonly tensors: ReadonlyArray<TfliteTensor>;
  readonly operators: ReadonlyArray<TfliteOperator>;
  readonly inputs: ReadonlyArray<number>;
  readonly outputs: ReadonlyArray<number>;
}

const TENSOR_TYPES: Record<number, TfliteTensorType> = { 0: "float32", 1: "float16", 2: "int32", 3: "uint8", 4: "int64" };

/** Builtin operator codes of schema.fbs that the converters know by name. */
const BUILTIN_OPS: Record<number, string> = {
  0: "ADD",
  1: "AVERAGE_POOL_2D",
  2: "CONCATENATION",
  3: "CONV_2D",
  4: "DEPTHWISE_CONV_2D",
  6: "DEQUANTIZE",
  14: "LOGISTIC",
  17: "MAX_POOL_2D",
  18: "MUL",
  19: "RELU",
  21: "RELU6",
  22: "RESHAPE",
  23: "RESIZE_BILINEAR",
  25: "SOFTMAX",
  28: "TANH",
  32: "CUSTOM",
  34: "PAD",
  40: "MEAN",
  41: "SUB",
  42: "DIV",
  49: "SPLIT",
  54: "PRELU",
  55: "MAXIMUM",
  57: "MINIMUM",
  67: "TRANSPOSE_CONV",
  97: "RESIZE_NEAREST_NEIGHBOR",
  117: "HARD_SWISH",
};

/** A flatbuffer table: fields are addressed by their index in the schema declaration. */
export class FlatTable {
  private readonly view: DataView;
  private readonly pos: number;

  constructor(view: DataView, pos: number) {
    this.view = view;
    this.pos = pos;
  }

  private fieldOffset(index: number): number {
    const vtable = this.pos - this.view.getInt32(this.pos, true);
    const vtableSize = this.view.getUint16(vtable, true);
    const slot = 4 + 2 * index;
    return slot < vtableSize ? this.view.getUint16(vtable + slot, true) : 0;
  }

  has(index: number): boolean {
    return this.fieldOffset(index) !== 0;
  }

  int8(index: number, fallback = 0): number {
    const o = this.fieldOffset(index);
    return o === 0 ? fallback : this.view.getInt8(this.pos + o);
  }

  int32(index: number, fallback = 0): number {
    const o = this.fieldOffset(index);
    return o === 0 ? fallback : this.view.getInt32(this.pos + o, true);
  }

  bool(index: number): boolean {
    return this.int8(index) !== 0;
  }

  private indirect(index: number): number | undefined {
    const o = this.fieldOffset(index);
    if (o === 0) return undefined;
    const at = this.pos + o;
    return at + this.view.getUint32(at, true);
  }

  table(index: number): FlatTable | undefined {
    const at = this.indirect(index);
    return at === undefined ? undefined : new FlatTable(this.view, at);
  }

  string(index: number): string | undefined {
    const bytes = this.bytes(index);
    return bytes === undefined ? undefined : new TextDecoder().decode(bytes);
  }

  bytes(index: number): Uint8Array | undefined {
    const at = this.indirect(index);
    if (at === undefined) return undefined;
    const length = this.view.getUint32(at, true);
    return new Uint8Array(this.view.buffer, this.view.byteOffset + at + 4, length);
  }

  int32s(index: number): ReadonlyArray<number> {
    const at = this.indirect(index);
    if (at === undefined) return [];
    const length = this.view.getUint32(at, true);
    return Array.from({ length }, (_, i) => this.view.getInt32(at + 4 + 4 * i, true));
  }

  tables(index: number): ReadonlyArray<FlatTable> {
    const at = this.indirect(index);
    if (at === undefined) return [];
    const length = this.view.getUint32(at, true);
    return Array.from({ length }, (_, i) => {
      const element = at + 4 + 4 * i;
      return new FlatTable(this.view, element + this.view.getUint32(element, true));
    });
  }
}

export const readTfliteModel = (file: Uint8Array): TfliteModel => {
  const view = new DataView(file.buffer, file.byteOffset, file.byteLength);
  if (new TextDecoder().decode(file.subarray(4, 8)) !== "TFL3") throw new Error("not a TensorFlow Lite model");
  const model = new FlatTable(view, view.getUint32(0, true));
  // Model: 1 operator_codes, 2 subgraphs, 4 buffers.
  const opNames = model.tables(1).map((code) => {
    // OperatorCode: 0 deprecated_builtin_code (byte), 1 custom_code, 3 builtin_code (int, newer files).
    const builtin = Math.max(code.int8(0), code.int32(3));
    return builtin === 32 ? (code.string(1) ?? "CUSTOM") : (BUILTIN_OPS[builtin] ?? `BUILTIN_${builtin}`);
  });
  const buffers = model.tables(4).map((buffer) => buffer.bytes(0));
  const graph = model.tables(2)[0];
  if (graph === undefined) throw new Error("TensorFlow Lite model without a subgraph");
  // SubGraph: 0 tensors, 1 inputs, 2 outputs, 3 operators.
  const tensors = graph.tables(0).map((t): TfliteTensor => {
    // Tensor: 0 shape, 1 type, 2 buffer, 3 name.
    const data = buffers[t.int32(2)];
    return {
      name: t.string(3) ?? "",
      shape: t.int32s(0),
      type: TENSOR_TYPES[t.int8(1)] ?? "other",
      data: data !== undefined && data.length > 0 ? data : undefined,
    };
  });
  const operators = graph.tables(3).map((o): TfliteOperator => {
    // Operator: 0 opcode_index, 1 inputs, 2 outputs, 3 builtin_options_type, 4 builtin_options, 5 custom_options.
    return {
      op: opNames[o.int32(0)] ?? "UNKNOWN",
      inputs: o.int32s(1),
      outputs: o.int32s(2),
      options: o.table(4),
      customOptions: o.bytes(5),
    };
  });
  return { tensors, operators, inputs: graph.int32s(1), outputs: graph.int32s(2) };
};
