import { float16ToFloat32 } from "./float16.ts";

/**
 * A TensorFlow.js graph model (model.json + weight shards): the GraphDef as JSON and its
 * constants decoded from the shards, float16-quantized weights widened to float32.
 */
export interface TfjsAttr {
  readonly s?: string;
  readonly i?: string;
  readonly f?: number;
  readonly b?: boolean;
  readonly type?: string;
  readonly list?: { readonly i?: ReadonlyArray<string>; readonly s?: ReadonlyArray<string> };
}

export interface TfjsNode {
  readonly name: string;
  readonly op: string;
  readonly input?: ReadonlyArray<string>;
  readonly attr?: Readonly<Record<string, TfjsAttr>>;
}

export interface TfjsConstant {
  readonly shape: ReadonlyArray<number>;
  readonly data: Float32Array | Int32Array;
}

export interface TfjsGraphModel {
  readonly nodes: ReadonlyArray<TfjsNode>;
  readonly constants: ReadonlyMap<string, TfjsConstant>;
}

interface WeightSpec {
  readonly name: string;
  readonly shape: ReadonlyArray<number>;
  readonly dtype: "float32" | "int32";
  readonly quantization?: { readonly dtype: string };
}

interface ModelJson {
  readonly modelTopology: { readonly node: ReadonlyArray<TfjsNode> };
  readonly weightsManifest: ReadonlyArray<{ readonly paths: ReadonlyArray<string>; readonly weights: ReadonlyArray<WeightSpec> }>;
}

/** `shards` are the weight files in manifest order, concatenated as tfjs does. */
export const readTfjsGraphModel = (modelJson: string, shards: ReadonlyArray<Uint8Array>): TfjsGraphModel => {
  const json = JSON.parse(modelJson) as ModelJson;
  const all = new Uint8Array(shards.reduce((n, s) => n + s.length, 0));
  shards.reduce((offset, s) => (all.set(s, offset), offset + s.length), 0);
  const constants = new Map<string, TfjsConstant>();
  let offset = 0;
  for (const spec of json.weightsManifest.flatMap((group) => group.weights)) {
    const count = spec.shape.reduce((a, b) => a * b, 1);
    const quantized = spec.quantization?.dtype;
    if (quantized !== undefined && quantized !== "float16") throw new Error(`unsupported weight quantization ${quantized}`);
    const bytes = count * (quantized === "float16" ? 2 : 4);
    const chunk = all.slice(offset, offset + bytes);
    offset += bytes;
    const data = quantized === "float16" ? float16ToFloat32(chunk) : spec.dtype === "int32" ? new Int32Array(chunk.buffer) : new Float32Array(chunk.buffer);
    constants.set(spec.name, { shape: spec.shape, data });
  }
  if (offset !== all.length) throw new Error("weight shards do not match the manifest");
  return { nodes: json.modelTopology.node, constants };
};
