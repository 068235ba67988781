import { BlazeFaceDetectorLive } from "../../src/adapters/faces/blazeface-face-detector.ts";
import { faceDetectorContract } from "./support/face-detector-contract.ts";

faceDetectorContract("BlazeFace on onnxruntime", BlazeFaceDetectorLive());
