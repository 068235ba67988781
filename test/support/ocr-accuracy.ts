import { Context, Effect, Layer, type Scope } from "effect";
import type { ValidatedImage } from "../../src/ports/engines/image.ts";
import { OcrEngine, type OcrEngineShape, type OcrLanguage } from "../../src/ports/engines/ocr-engine.ts";
import { type CerCount, cerCount, cerPercent } from "./character-error-rate.ts";
import type { CorpusSample } from "./ocr-corpus.ts";

/** Runs an engine over a corpus and pools the character error rate per language and variant. */
export interface SampleOutcome {
  readonly sample: CorpusSample;
  readonly text: string;
  readonly language: string;
  readonly count: CerCount;
  readonly ms: number;
}

export const engineOf = <E>(layer: Layer.Layer<OcrEngine, E>): Effect.Effect<OcrEngineShape, E, Scope.Scope> =>
  Layer.build(layer).pipe(Effect.map((context) => Context.get(context, OcrEngine)));

export const asValidatedImage = (sample: CorpusSample, width: number, height: number): ValidatedImage => ({
  bytes: sample.png,
  format: "png",
  width,
  height,
});

export const pngSize = (png: Uint8Array): { width: number; height: number } => {
  const view = new DataView(png.buffer, png.byteOffset, png.byteLength);
  return { width: view.getUint32(16), height: view.getUint32(20) };
};

export const readSample = (engine: OcrEngineShape, sample: CorpusSample, language: OcrLanguage | "auto") =>
  Effect.gen(function* () {
    const { width, height } = pngSize(sample.png);
    const started = performance.now();
    const result = yield* engine.recognize({
      image: asValidatedImage(sample, width, height),
      language: language === "auto" ? language : [language],
      outputFormat: "text",
    });
    return {
      sample,
      text: result.text,
      language: result.language,
      count: cerCount(result.text, sample.groundTruth),
      ms: performance.now() - started,
    } satisfies SampleOutcome;
  });

/** Pooled CER (%) per key, e.g. per language or per variant. */
export const cerBy = (outcomes: ReadonlyArray<SampleOutcome>, key: (outcome: SampleOutcome) => string): Map<string, number> => {
  const groups = new Map<string, CerCount[]>();
  for (const outcome of outcomes) groups.set(key(outcome), [...(groups.get(key(outcome)) ?? []), outcome.count]);
  return new Map([...groups].map(([name, counts]) => [name, cerPercent(counts)]));
};
