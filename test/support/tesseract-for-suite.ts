import { Effect, ManagedRuntime } from "effect";
import sharp from "sharp";
import { afterAll, beforeAll } from "vitest";
import { TesseractOcrEngine } from "../../src/adapters/ocr/tesseract/tesseract-ocr-engine.ts";
import { OcrEngine, type OcrRequest } from "../../src/ports/engines/ocr-engine.ts";
import type { DependencyUnavailable } from "../../src/ports/errors.ts";
import { queuedOcrEngineLayer } from "../../src/queued-ocr-engine.ts";

/**
 * The Tesseract engine with one worker for a whole test file (made before its tests, disposed
 * after them), as the accuracy sweeps read pages one at a time: `recognize` runs one request.
 * The deadline is the service's 30 s stretched fourfold: a sweep measures what is read, and a
 * machine busy with other work must not fail it (`auto` on a tall two-script page takes 18-30 s).
 */
export const tesseractForSuite = () => {
  let runtime: ManagedRuntime.ManagedRuntime<OcrEngine, DependencyUnavailable> | undefined;
  beforeAll(() => {
    runtime = ManagedRuntime.make(queuedOcrEngineLayer({ deadlineMs: 120_000 })(TesseractOcrEngine.layer({ workers: 1 })));
  });
  afterAll(async () => {
    await runtime?.dispose();
  });
  return {
    recognize: (request: OcrRequest) =>
      runtime!.runPromise(
        Effect.gen(function* () {
          return yield* (yield* OcrEngine).recognize(request);
        }),
      ),
  };
};

/** Image bytes as the engine takes them: a PNG as it is, anything else (a TIFF) re-encoded as one, with their size. */
export const pngImage = async (bytes: Uint8Array) => {
  const png = (await sharp(bytes).metadata()).format === "png" ? bytes : new Uint8Array(await sharp(bytes).png().toBuffer());
  const { width = 0, height = 0 } = await sharp(png).metadata();
  return { bytes: png, format: "png" as const, width, height };
};
