import { SelfiePersonSegmenterLive } from "../../src/adapters/segmentation/selfie-person-segmenter.ts";
import { personSegmenterContract } from "./support/person-segmenter-contract.ts";

personSegmenterContract("MediaPipe selfie segmentation on onnxruntime", SelfiePersonSegmenterLive());
