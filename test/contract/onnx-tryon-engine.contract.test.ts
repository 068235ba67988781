import { OnnxTryOnEngineLive } from "../../src/adapters/tryon/onnx-tryon-engine.ts";
import { tryOnEngineContract } from "./support/tryon-engine-contract.ts";

tryOnEngineContract("onnxruntime (MoveNet, selfie segmentation, TPS warp)", OnnxTryOnEngineLive());
