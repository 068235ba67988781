import { Layer } from "effect";
import { BlazeFaceDetectorLive } from "../../src/adapters/faces/blazeface-face-detector.ts";
import { sharpImageEngineLayer } from "../../src/adapters/image/sharp-image-engine.ts";
import { ellipsePersonSegmenter } from "../support/ellipse-person-segmenter.ts";
import { imageEngineContract } from "./support/image-engine-contract.ts";

imageEngineContract("sharp (libvips)", sharpImageEngineLayer().pipe(Layer.provide(Layer.merge(ellipsePersonSegmenter().layer, BlazeFaceDetectorLive()))));
