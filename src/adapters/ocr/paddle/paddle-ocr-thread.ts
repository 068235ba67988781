import { readFileSync } from "node:fs";
import { parentPort, workerData } from "node:worker_threads";
import * as ort from "onnxruntime-node";
import { type CloseRequest, isCloseRequest } from "../../threads/close-thread.ts";
import { boxesFromProbabilities, detectionTensor, type RgbImage, type TextBox } from "./text-detection.ts";
import { classifierWidth, orientationBatch, pageIsUpsideDown } from "./text-orientation.ts";
import { decodeCtc, lineHeight, lineWidthFor, recognitionBatch } from "./text-recognition.ts";

/**
 * One inference thread of the PaddleOCR engine. onnxruntime-node runs a session synchronously
 * on the calling thread, so inference lives here, off the event loop that serves requests.
 * Loaded by Node with type stripping (erasable syntax only).
 */
export interface PaddleThreadSetup {
  readonly detectionPath: string;
  readonly recognitionPath: string;
  readonly classifierPath: string;
  readonly dictionaryPath: string;
  readonly threads: number;
}

export interface PaddleJob {
  readonly id: number;
  /** The prepared page, for cropping lines. */
  readonly page: RgbImage;
  /** The page resized for the detector (sides multiples of 32). */
  readonly detection: RgbImage;
  /** Ask the line classifier whether the page is upside down before recognising it. */
  readonly checkOrientation: boolean;
}

export interface RecognisedLine extends TextBox {
  readonly text: string;
  readonly confidence: number;
}

export type PaddleThreadMessage =
  | { readonly kind: "ready" }
  /** `upsideDown`: the line classifier says the page is turned 180 degrees; nothing was recognised. */
  | { readonly kind: "done"; readonly id: number; readonly lines: ReadonlyArray<RecognisedLine>; readonly upsideDown: boolean }
  | { readonly kind: "failed"; readonly id: number; readonly message: string };

/** Lines per recognition run (PaddleOCR's rec_batch_num), sorted by width so padding stays small. */
const batchSize = 6;

const setup = workerData as PaddleThreadSetup;
const port = parentPort;
if (port === null) throw new Error("paddle-ocr-thread runs as a worker thread");

const options: ort.InferenceSession.SessionOptions = { intraOpNumThreads: setup.threads, interOpNumThreads: 1 };
const detector = await ort.InferenceSession.create(setup.detectionPath, options);
const recogniser = await ort.InferenceSession.create(setup.recognitionPath, options);
const classifier = await ort.InferenceSession.create(setup.classifierPath, options);
const characters = [
  ...readFileSync(setup.dictionaryPath, "utf8")
    .split(/\r?\n/)
    .filter((line, i, all) => line !== "" || i < all.length - 1),
  " ",
];

const detect = async (job: PaddleJob): Promise<TextBox[]> => {
  const { detection, page } = job;
  const input = new ort.Tensor("float32", detectionTensor(detection), [1, 3, detection.height, detection.width]);
  const output = (await detector.run({ [detector.inputNames[0] ?? "x"]: input }))[detector.outputNames[0] ?? ""];
  if (output === undefined) throw new Error("detector returned no output");
  const scaleX = page.width / detection.width;
  const scaleY = page.height / detection.height;
  return boxesFromProbabilities(output.data as Float32Array, detection.width, detection.height).map((box) => ({
    x0: box.x0 * scaleX,
    y0: box.y0 * scaleY,
    x1: Math.min(page.width, box.x1 * scaleX),
    y1: Math.min(page.height, box.y1 * scaleY),
    score: box.score,
  }));
};

const upsideDown = async (page: RgbImage, boxes: ReadonlyArray<TextBox>): Promise<boolean> => {
  if (boxes.length === 0) return false;
  const input = new ort.Tensor("float32", orientationBatch(page, boxes), [boxes.length, 3, lineHeight, classifierWidth]);
  const output = (await classifier.run({ [classifier.inputNames[0] ?? "x"]: input }))[classifier.outputNames[0] ?? ""];
  if (output === undefined) throw new Error("classifier returned no output");
  return pageIsUpsideDown(output.data as Float32Array, boxes.length);
};

const recognise = async (page: RgbImage, boxes: ReadonlyArray<TextBox>): Promise<RecognisedLine[]> => {
  const order = boxes.map((box, index) => ({ box, index })).sort((a, b) => lineWidthFor(a.box) - lineWidthFor(b.box));
  const lines: RecognisedLine[] = new Array<RecognisedLine>(boxes.length);
  for (let start = 0; start < order.length; start += batchSize) {
    const batch = order.slice(start, start + batchSize);
    const { data, width } = recognitionBatch(
      page,
      batch.map((entry) => entry.box),
    );
    const input = new ort.Tensor("float32", data, [batch.length, 3, lineHeight, width]);
    const output = (await recogniser.run({ [recogniser.inputNames[0] ?? "x"]: input }))[recogniser.outputNames[0] ?? ""];
    if (output === undefined) throw new Error("recogniser returned no output");
    const [, steps = 0, classes = 0] = output.dims;
    batch.forEach((entry, n) => {
      const decoded = decodeCtc(output.data as Float32Array, steps, classes, characters, n);
      lines[entry.index] = { ...entry.box, text: decoded.text, confidence: decoded.confidence };
    });
  }
  return lines;
};

const read = async (job: PaddleJob): Promise<PaddleThreadMessage> => {
  const boxes = await detect(job);
  if (job.checkOrientation && (await upsideDown(job.page, boxes))) return { kind: "done", id: job.id, lines: [], upsideDown: true };
  return { kind: "done", id: job.id, lines: await recognise(job.page, boxes), upsideDown: false };
};

port.on("message", (job: PaddleJob | CloseRequest) => {
  if (isCloseRequest(job)) return port.close();
  read(job).then(
    (message) => port.postMessage(message),
    (error: unknown) => port.postMessage({ kind: "failed", id: job.id, message: String(error) } satisfies PaddleThreadMessage),
  );
});
port.postMessage({ kind: "ready" } satisfies PaddleThreadMessage);
