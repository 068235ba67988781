/**
 * Character error rate per engine, language and page variant on the full generated corpus
 * (three fonts, two sizes, noisy / blurred / tilted / turned / upside-down / low-contrast /
 * small pages, two-column pages, receipts and tables), with the language given and with
 * "auto" (how often the language was named right).
 *
 *   npx tsx bench/ocr-accuracy.ts [--ablation]
 *
 * --ablation also runs the Tesseract engine with each preprocessing step flipped, which is how
 * the defaults were chosen (keep a step only where it lowers the CER).
 * Needs Debian packages fonts-dejavu-core fonts-noto-cjk fonts-noto-core.
 */
import { Effect, type Layer } from "effect";
import { paddleLanguages, PaddleOcrEngine } from "../src/adapters/ocr/paddle/paddle-ocr-engine.ts";
import { defaultTesseractPreprocessing, TesseractOcrEngine, type TesseractPreprocessing } from "../src/adapters/ocr/tesseract/tesseract-ocr-engine.ts";
import type { OcrEngine } from "../src/ports/engines/ocr-engine.ts";
import type { DependencyUnavailable } from "../src/ports/errors.ts";
import { queuedOcrEngineLayer } from "../src/queued-ocr-engine.ts";
import { cerPercent } from "../test/support/character-error-rate.ts";
import { cerBy, engineOf, readSample, type SampleOutcome } from "../test/support/ocr-accuracy.ts";
import { type CorpusSample, fullCorpus, missingFontFamilies, renderSample } from "../test/support/ocr-corpus.ts";
import { corpusLanguages } from "../test/support/ocr-corpus-texts.ts";

interface Run {
  readonly name: string;
  readonly layer: () => Layer.Layer<OcrEngine, DependencyUnavailable>;
  readonly samples: ReadonlyArray<CorpusSample>;
  readonly auto: boolean;
}

const languages = corpusLanguages.filter((language) => missingFontFamilies([language]).length === 0);
const corpus = await Promise.all(fullCorpus(languages).map(renderSample));
const paddleCorpus = corpus.filter((sample) => (paddleLanguages as ReadonlyArray<string>).includes(sample.language));

const runs: Run[] = [
  { name: "tesseract.js", layer: () => queuedOcrEngineLayer()(TesseractOcrEngine.layer()), samples: corpus, auto: false },
  { name: "tesseract.js auto", layer: () => queuedOcrEngineLayer()(TesseractOcrEngine.layer()), samples: corpus, auto: true },
  { name: "PaddleOCR", layer: () => queuedOcrEngineLayer()(PaddleOcrEngine.layer()), samples: paddleCorpus, auto: false },
  { name: "PaddleOCR auto", layer: () => queuedOcrEngineLayer()(PaddleOcrEngine.layer()), samples: paddleCorpus, auto: true },
];
if (process.argv.includes("--ablation")) {
  for (const step of Object.keys(defaultTesseractPreprocessing) as Array<keyof TesseractPreprocessing>) {
    const flipped = { [step]: !defaultTesseractPreprocessing[step] };
    runs.push({
      name: `tesseract.js ${step}=${String(!defaultTesseractPreprocessing[step])}`,
      layer: () => queuedOcrEngineLayer()(TesseractOcrEngine.layer({ preprocessing: flipped })),
      samples: corpus,
      auto: false,
    });
  }
}

const results = new Map<string, { outcomes: ReadonlyArray<SampleOutcome>; seconds: number }>();
for (const run of runs) {
  const started = performance.now();
  const outcomes = await Effect.runPromise(
    Effect.scoped(
      Effect.gen(function* () {
        const engine = yield* engineOf(run.layer());
        return yield* Effect.forEach(run.samples, (sample) => readSample(engine, sample, run.auto ? "auto" : sample.language), { concurrency: 2 });
      }),
    ),
  );
  results.set(run.name, { outcomes, seconds: (performance.now() - started) / 1000 });
}

const table = (title: string, keys: ReadonlyArray<string>, key: (outcome: SampleOutcome) => string) => {
  console.log(`\n${title}`);
  console.log(["".padEnd(36), ...keys.map((name) => name.padStart(13))].join(""));
  for (const [name, { outcomes }] of results) {
    const cer = cerBy(outcomes, key);
    console.log([name.padEnd(36), ...keys.map((k) => (cer.has(k) ? (cer.get(k) ?? 0).toFixed(2) : "-").padStart(13))].join(""));
  }
};

const variantOf = (outcome: SampleOutcome) => (outcome.sample.layout === "paragraph" ? outcome.sample.variant : outcome.sample.layout);
const variants = [...new Set(corpus.map((sample) => (sample.layout === "paragraph" ? sample.variant : sample.layout)))];
console.log(`OCR accuracy on ${corpus.length} generated pages (${paddleCorpus.length} in PaddleOCR's languages)`);
table("CER % per language", languages, (outcome) => outcome.sample.language);
table("CER % per page variant", variants, variantOf);
console.log(`\n${"".padEnd(36)}${"CER %".padStart(8)}${"pages/s".padStart(9)}${"language named right".padStart(22)}`);
for (const [name, { outcomes, seconds }] of results) {
  const right = outcomes.filter((outcome) => outcome.language === outcome.sample.language).length;
  console.log(
    `${name.padEnd(36)}${cerPercent(outcomes.map((outcome) => outcome.count))
      .toFixed(2)
      .padStart(8)}${(outcomes.length / seconds).toFixed(2).padStart(9)}${`${right}/${outcomes.length}`.padStart(22)}`,
  );
}
const missing = missingFontFamilies(corpusLanguages);
if (missing.length > 0) console.log(`\nfonts missing, languages skipped: ${missing.join(", ")}`);
