import { Effect, type Layer, ManagedRuntime } from "effect";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { PaddleOcrEngine } from "../../src/adapters/ocr/paddle/paddle-ocr-engine.ts";
import { TesseractOcrEngine } from "../../src/adapters/ocr/tesseract/tesseract-ocr-engine.ts";
import { OcrEngine, type OcrEngineShape } from "../../src/ports/engines/ocr-engine.ts";
import type { DependencyUnavailable } from "../../src/ports/errors.ts";
import { queuedOcrEngineLayer } from "../../src/queued-ocr-engine.ts";
import { cerPercent } from "../support/character-error-rate.ts";
import { readSample, type SampleOutcome } from "../support/ocr-accuracy.ts";
import { type CorpusSample, missingFontFamilies, renderSample, smallCorpus } from "../support/ocr-corpus.ts";
import { type CorpusLanguage, corpusLanguages } from "../support/ocr-corpus-texts.ts";

/**
 * Accuracy on a small generated corpus (a few pages per language; English also noisy,
 * turned, small, a receipt and a table), pooled CER per engine and language against ceilings
 * set a little above what was measured, so that a regression fails. The full corpus and the
 * comparison with native Tesseract are in bench/ocr-accuracy.ts and bench/ocr-throughput.ts.
 *
 * Fonts: fonts-dejavu-core (Latin), fonts-noto-cjk (chi_sim, jpn), fonts-noto-core (ara); a
 * language whose fonts are missing is skipped, and the test output names the package.
 */
interface Engine {
  readonly name: string;
  readonly layer: () => Layer.Layer<OcrEngine, DependencyUnavailable>;
  /** Highest pooled CER (%) accepted per language; languages absent are not read by the engine. */
  readonly ceilings: Partial<Record<CorpusLanguage, number>>;
}

const engines: ReadonlyArray<Engine> = [
  {
    name: "tesseract.js",
    layer: () => queuedOcrEngineLayer()(TesseractOcrEngine.layer()),
    // Measured: eng 4.8 (the receipt, read column by column as the native CLI does, is most of it), Arabic 1.4, others 0.
    ceilings: { eng: 7, deu: 1.5, fra: 1.5, spa: 1.5, ita: 1.5, por: 1.5, nld: 1.5, chi_sim: 1.5, jpn: 1.5, ara: 4 },
  },
  {
    name: "PaddleOCR",
    layer: () => queuedOcrEngineLayer()(PaddleOcrEngine.layer()),
    // Measured: eng 11.4 (receipt and table read column by column), chi_sim 0.
    ceilings: { eng: 14, chi_sim: 1.5 },
  },
];

const available = corpusLanguages.filter((language) => missingFontFamilies([language]).length === 0);
const missing = missingFontFamilies(corpusLanguages);

describe.each(engines)("OCR accuracy on the small corpus: $name", (engine) => {
  let runtime: ManagedRuntime.ManagedRuntime<OcrEngine, DependencyUnavailable>;
  let service: OcrEngineShape;
  let samples: ReadonlyArray<CorpusSample>;
  const outcomes: SampleOutcome[] = [];
  const languages = available.filter((language) => engine.ceilings[language] !== undefined);

  beforeAll(async () => {
    runtime = ManagedRuntime.make(engine.layer());
    service = await runtime.runPromise(
      Effect.gen(function* () {
        return yield* OcrEngine;
      }),
    );
    samples = await Promise.all(smallCorpus(languages).map(renderSample));
    outcomes.push(...(await Effect.runPromise(Effect.forEach(samples, (sample) => readSample(service, sample, sample.language)))));
  });
  afterAll(async () => {
    console.log(
      [
        `CER (%) of ${engine.name} per page:`,
        ...outcomes.map((outcome) => `  ${outcome.sample.id.padEnd(48)} ${((100 * outcome.count.errors) / outcome.count.length).toFixed(2).padStart(7)}`),
        ...(missing.length > 0 ? [`  fonts missing, languages skipped: ${missing.join(", ")}`] : []),
      ].join("\n"),
    );
    await runtime?.dispose();
  });

  it.each(languages)("reads %s within its CER ceiling", (language) => {
    const counts = outcomes.filter((outcome) => outcome.sample.language === language).map((outcome) => outcome.count);
    expect(counts.length).toBeGreaterThan(0);
    expect(cerPercent(counts)).toBeLessThanOrEqual(engine.ceilings[language] ?? 0);
  });
});
