import protobuf from "protobufjs";

/**
 * Builds ONNX models in memory. The converters (TensorFlow Lite and tfjs graph models that ship
 * in npm packages) and the try-on's own warp/compositing graphs are all written with this
 * builder, then run by onnxruntime-node. Only the subset of onnx.proto that a model needs is
 * declared; field numbers are those of onnx/onnx.proto.
 */
const ONNX_PROTO = `
syntax = "proto3";
package onnx;
message AttributeProto {
  string name = 1; float f = 2; int64 i = 3; bytes s = 4; TensorProto t = 5;
  repeated float floats = 7; repeated int64 ints = 8; int32 type = 20;
}
message ValueInfoProto { string name = 1; TypeProto type = 2; }
message NodeProto {
  repeated string input = 1; repeated string output = 2; string name = 3; string op_type = 4;
  repeated AttributeProto attribute = 5; string domain = 7;
}
message TensorShapeProto {
  message Dimension { int64 dim_value = 1; string dim_param = 2; }
  repeated Dimension dim = 1;
}
message TypeProto {
  message Tensor { int32 elem_type = 1; TensorShapeProto shape = 2; }
  Tensor tensor_type = 1;
}
message TensorProto {
  repeated int64 dims = 1; int32 data_type = 2; string name = 8; bytes raw_data = 9;
}
message GraphProto {
  repeated NodeProto node = 1; string name = 2; repeated TensorProto initializer = 5;
  repeated ValueInfoProto input = 11; repeated ValueInfoProto output = 12;
}
message OperatorSetIdProto { string domain = 1; int64 version = 2; }
message ModelProto {
  int64 ir_version = 1; string producer_name = 2; GraphProto graph = 7;
  repeated OperatorSetIdProto opset_import = 8;
}
`;

const ModelProto = protobuf.parse(ONNX_PROTO).root.lookupType("onnx.ModelProto");

export type ElemType = "float32" | "int32" | "int64" | "uint8" | "bool";
const DATA_TYPE: Record<ElemType, number> = { float32: 1, uint8: 2, int32: 6, int64: 7, bool: 9 };

/** Attribute values, tagged by ONNX attribute type. */
export type Attribute =
  | { readonly i: number }
  | { readonly f: number }
  | { readonly s: string }
  | { readonly ints: ReadonlyArray<number> }
  | { readonly floats: ReadonlyArray<number> };

const ATTRIBUTE_TYPE = { f: 1, i: 2, s: 3, floats: 6, ints: 7 } as const;

const encodeAttribute = (name: string, value: Attribute) => {
  if ("i" in value) return { name, i: value.i, type: ATTRIBUTE_TYPE.i };
  if ("f" in value) return { name, f: value.f, type: ATTRIBUTE_TYPE.f };
  if ("s" in value) return { name, s: new TextEncoder().encode(value.s), type: ATTRIBUTE_TYPE.s };
  if ("ints" in value) return { name, ints: [...value.ints], type: ATTRIBUTE_TYPE.ints };
  return { name, floats: [...value.floats], type: ATTRIBUTE_TYPE.floats };
};

type Dim = number | string;

/** `dims` undefined leaves the shape to onnxruntime's inference. */
const valueInfo = (name: string, type: ElemType, dims: ReadonlyArray<Dim> | undefined) => ({
  name,
  type: {
    tensorType: {
      elemType: DATA_TYPE[type],
      ...(dims === undefined ? {} : { shape: { dim: dims.map((d) => (typeof d === "number" ? { dimValue: d } : { dimParam: d })) } }),
    },
  },
});

const rawBytes = (data: Float32Array | Int32Array | BigInt64Array | Uint8Array): Uint8Array => new Uint8Array(data.buffer, data.byteOffset, data.byteLength);

export class OnnxGraph {
  private readonly nodes: Array<object> = [];
  private readonly initializers: Array<object> = [];
  private readonly inputs: Array<object> = [];
  private readonly outputs: Array<object> = [];
  private counter = 0;

  fresh(prefix: string): string {
    this.counter += 1;
    return `${prefix}_${this.counter}`;
  }

  input(name: string, type: ElemType, dims: ReadonlyArray<Dim>): string {
    this.inputs.push(valueInfo(name, type, dims));
    return name;
  }

  output(name: string, type: ElemType, dims?: ReadonlyArray<Dim>): void {
    this.outputs.push(valueInfo(name, type, dims));
  }

  /** A constant tensor (an initializer); returns its name. */
  constant(dims: ReadonlyArray<number>, data: Float32Array | Int32Array | BigInt64Array | Uint8Array, name?: string): string {
    const type: ElemType = data instanceof Float32Array ? "float32" : data instanceof Int32Array ? "int32" : data instanceof BigInt64Array ? "int64" : "uint8";
    const tensorName = name ?? this.fresh("const");
    this.initializers.push({ name: tensorName, dims: [...dims], dataType: DATA_TYPE[type], rawData: rawBytes(data) });
    return tensorName;
  }

  floats(values: ReadonlyArray<number>, dims: ReadonlyArray<number> = [values.length]): string {
    return this.constant(dims, Float32Array.from(values));
  }

  int64s(values: ReadonlyArray<number>, dims: ReadonlyArray<number> = [values.length]): string {
    return this.constant(dims, BigInt64Array.from(values.map((v) => BigInt(v))));
  }

  /** Adds a node and returns its first output's name (`outputs` names them, or count fresh ones). */
  node(op: string, inputs: ReadonlyArray<string>, attributes: Record<string, Attribute> = {}, outputs: ReadonlyArray<string> | number = 1): string {
    return this.nodeOutputs(op, inputs, attributes, outputs)[0] as string;
  }

  nodeOutputs(
    op: string,
    inputs: ReadonlyArray<string>,
    attributes: Record<string, Attribute> = {},
    outputs: ReadonlyArray<string> | number = 1,
  ): ReadonlyArray<string> {
    const names = typeof outputs === "number" ? Array.from({ length: outputs }, () => this.fresh(op)) : [...outputs];
    this.nodes.push({
      opType: op,
      input: [...inputs],
      output: names,
      name: this.fresh(`${op}_node`),
      attribute: Object.entries(attributes).map(([name, value]) => encodeAttribute(name, value)),
    });
    return names;
  }

  encode(opset = 17): Uint8Array {
    const model = {
      irVersion: 8,
      producerName: "image-transformation-service",
      opsetImport: [{ domain: "", version: opset }],
      graph: { name: "graph", node: this.nodes, initializer: this.initializers, input: this.inputs, output: this.outputs },
    };
    return ModelProto.encode(ModelProto.fromObject(model)).finish();
  }
}
