import { Effect, type Layer, ManagedRuntime } from "effect";
import sharp from "sharp";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { ValidatedImage } from "../../../src/ports/engines/image.ts";
import {
  OcrEngine,
  type OcrEngineShape,
  type OcrLanguage,
  ocrLanguages,
  type OcrOutputFormat,
  parseOcrLanguageRequest,
} from "../../../src/ports/engines/ocr-engine.ts";
import type { OcrRecognizer } from "../../../src/ports/engines/ocr-recognizer.ts";
import type { DependencyUnavailable } from "../../../src/ports/errors.ts";
import { queuedOcrEngineLayer } from "../../../src/queued-ocr-engine.ts";
import { cerCount } from "../../support/character-error-rate.ts";
import { pngSize } from "../../support/ocr-accuracy.ts";
import { type CorpusSpec, fontsFor, missingFontFamilies, renderSample } from "../../support/ocr-corpus.ts";
import type { CorpusLanguage } from "../../support/ocr-corpus-texts.ts";
import { readPdfBack } from "../../support/poppler.ts";

/**
 * The contract every OcrEngine adapter keeps. An adapter provides its recognizer; the suite puts
 * it behind the capacity every engine gets in composition (src/queued-ocr-engine.ts) and holds the
 * OcrEngine made so to the port's rules. Pages are rendered at test time (fonts from
 * fonts-dejavu-core); a suite is skipped, saying which package is missing, when they are not.
 */
export interface OcrEngineUnderContract {
  readonly name: string;
  readonly layer: () => Layer.Layer<OcrRecognizer, DependencyUnavailable>;
  /** The engine with one worker, for the cases of its line and deadline. */
  readonly oneWorkerLayer: () => Layer.Layer<OcrRecognizer, DependencyUnavailable>;
  /** Languages whose clean pages "auto" must name (every Latin one for Tesseract). */
  readonly autoLanguages: ReadonlyArray<CorpusLanguage & OcrLanguage>;
}

const page = (language: CorpusLanguage, overrides: Partial<CorpusSpec> = {}): CorpusSpec => ({
  language,
  layout: "paragraph",
  variant: "clean",
  font: fontsFor[language][0] ?? "DejaVu Sans",
  fontSize: 22,
  textIndex: 0,
  ...overrides,
});

const image = (png: Uint8Array): ValidatedImage => ({ bytes: png, format: "png", ...pngSize(png) });

const blankPage = async () =>
  image(
    new Uint8Array(
      await sharp({ create: { width: 640, height: 320, channels: 3, background: "#fdfdfd" } })
        .png()
        .toBuffer(),
    ),
  );

const serviceOf = async (runtime: ManagedRuntime.ManagedRuntime<OcrEngine, DependencyUnavailable>) =>
  runtime.runPromise(
    Effect.gen(function* () {
      return yield* OcrEngine;
    }),
  );

const missingLatinFonts = missingFontFamilies(["eng"]);
if (missingLatinFonts.length > 0) console.warn(`OcrEngine contract skipped, fonts missing: ${missingLatinFonts.join(", ")}`);

export const ocrEngineContract = (subject: OcrEngineUnderContract) =>
  describe.skipIf(missingLatinFonts.length > 0)(`OcrEngine contract: ${subject.name}`, () => {
    let runtime: ManagedRuntime.ManagedRuntime<OcrEngine, DependencyUnavailable>;
    let engine: OcrEngineShape;
    let english: { image: ValidatedImage; groundTruth: string };

    beforeAll(async () => {
      runtime = ManagedRuntime.make(queuedOcrEngineLayer()(subject.layer()));
      engine = await serviceOf(runtime);
      const sample = await renderSample(page("eng"));
      english = { image: image(sample.png), groundTruth: sample.groundTruth };
    });
    afterAll(async () => {
      await runtime?.dispose();
    });

    /** The language as a client writes it: `eng`, `eng+deu` or `auto`. */
    const asked = (language: string) => {
      const parsed = parseOcrLanguageRequest(language);
      if (parsed === undefined) throw new Error(`not a language request: ${language}`);
      return parsed;
    };
    const recognize = (input: ValidatedImage, language: string, outputFormat: OcrOutputFormat = "text") =>
      Effect.runPromise(engine.recognize({ image: input, language: asked(language), outputFormat }));
    const failure = (input: ValidatedImage, language: string) =>
      Effect.runPromise(Effect.flip(engine.recognize({ image: input, language: asked(language), outputFormat: "text" })));

    it("offers English among the service's languages", () => {
      expect(engine.languages).toContain("eng");
      for (const language of engine.languages) expect(ocrLanguages).toContain(language);
    });

    it("reads a clean English page with a low character error rate", async () => {
      const result = await recognize(english.image, "eng");
      const { errors, length } = cerCount(result.text, english.groundTruth);
      expect(errors / length).toBeLessThan(0.03);
      expect(result).toMatchObject({ language: "eng", outputFormat: "text" });
      expect(result.confidence).toBeGreaterThan(50);
      expect(result.confidence).toBeLessThanOrEqual(100);
    });

    it("gives blocks, lines and words with boxes in the image's frame as json", async () => {
      const result = await recognize(english.image, "eng", "json");
      if (result.outputFormat !== "json") throw new Error(`expected json, got ${result.outputFormat}`);
      const words = result.blocks.flatMap((block) => block.lines.flatMap((line) => line.words));
      expect(words.map((word) => word.text).join(" ")).toContain("customer");
      for (const word of words) {
        expect(word.confidence).toBeGreaterThanOrEqual(0);
        expect(word.confidence).toBeLessThanOrEqual(100);
        expect(word.bbox.x0).toBeLessThan(word.bbox.x1);
        expect(word.bbox.y0).toBeLessThan(word.bbox.y1);
        expect(word.bbox.x1).toBeLessThanOrEqual(english.image.width);
        expect(word.bbox.y1).toBeLessThanOrEqual(english.image.height);
      }
      // The page has a 44 px margin: "Dear" opens the first line there.
      const first = words[0];
      expect(first?.text).toBe("Dear");
      expect(first?.bbox.x0).toBeGreaterThan(30);
      expect(first?.bbox.x0).toBeLessThan(60);
      expect(first?.bbox.y0).toBeGreaterThan(30);
      expect(first?.bbox.y0).toBeLessThan(60);
    });

    it("maps boxes back to the client's frame when the page had to be turned", async () => {
      const sample = await renderSample(page("eng", { variant: "rotated90" }));
      const result = await recognize(image(sample.png), "eng", "json");
      if (result.outputFormat !== "json") throw new Error(`expected json, got ${result.outputFormat}`);
      const first = result.blocks[0]?.lines[0]?.words[0];
      expect(first?.text).toBe("Dear");
      // Turned clockwise, the first line runs down the right-hand edge.
      const { width } = pngSize(sample.png);
      expect(first?.bbox.x0).toBeGreaterThan(width - 80);
      expect((first?.bbox.y1 ?? 0) - (first?.bbox.y0 ?? 0)).toBeGreaterThan((first?.bbox.x1 ?? 0) - (first?.bbox.x0 ?? 0));
    });

    it("gives hOCR with one word element per word", async () => {
      const result = await recognize(english.image, "eng", "hocr");
      if (result.outputFormat !== "hocr") throw new Error(`expected hocr, got ${result.outputFormat}`);
      expect(result.hocr).toContain("class='ocr_page'");
      expect(result.hocr).toMatch(/<span class='ocrx_word' id='word_1_1' title='bbox \d+ \d+ \d+ \d+; x_wconf \d+'>Dear<\/span>/);
      expect(result.hocr.match(/class='ocrx_word'/g)?.length).toBe(result.text.split(/\s+/).length);
    });

    it("gives TSV in Tesseract's columns", async () => {
      const result = await recognize(english.image, "eng", "tsv");
      if (result.outputFormat !== "tsv") throw new Error(`expected tsv, got ${result.outputFormat}`);
      const rows = result.tsv
        .trim()
        .split("\n")
        .map((row) => row.split("\t"));
      expect(rows[0]).toEqual(["level", "page_num", "block_num", "par_num", "line_num", "word_num", "left", "top", "width", "height", "conf", "text"]);
      const words = rows.filter((row) => row[0] === "5");
      expect(words.map((row) => row[11]).join(" ")).toBe(result.text.split(/\s+/).join(" "));
      for (const row of words) expect(Number(row[10])).toBeGreaterThanOrEqual(0);
    });

    it("writes a searchable PDF of the page: one page at 300 dpi, its text layer reads as its text", async () => {
      const result = await recognize(english.image, "eng", "pdf");
      if (result.outputFormat !== "pdf") throw new Error(`expected pdf, got ${result.outputFormat}`);
      const back = await readPdfBack(result.pdf);
      expect(back.warnings).toBe("");
      expect(back.pages).toBe(1);
      // The rendered page states no resolution: 300 dpi, the scans' usual, gives its size in print.
      expect(back.pageSizes[0]?.width).toBeCloseTo((english.image.width * 72) / 300, 0);
      expect(cerCount(back.text, result.text).errors).toBeLessThanOrEqual(Math.ceil(0.02 * result.text.length));
      expect(cerCount(result.text, english.groundTruth).errors / english.groundTruth.length).toBeLessThan(0.05);
    });

    it('reads "" from an image without text, whether the language is given or detected', async () => {
      const blank = await blankPage();
      for (const language of ["eng", "auto"] as const) {
        const result = await recognize(blank, language, "json");
        expect(result).toMatchObject({ text: "", confidence: 0, outputFormat: "json", blocks: [] });
      }
    });

    for (const language of subject.autoLanguages) {
      it.skipIf(missingFontFamilies([language]).length > 0)(`names ${language} when asked for "auto" on a clean page`, async () => {
        const sample = await renderSample(page(language));
        const result = await recognize(image(sample.png), "auto");
        expect(result.language).toBe(language);
        const { errors, length } = cerCount(result.text, sample.groundTruth);
        expect(errors / length).toBeLessThan(0.05);
      });
    }

    it("refuses a language it does not read with UnsupportedLanguage", async () => {
      const unsupported = ocrLanguages.find((language) => !engine.languages.includes(language));
      if (unsupported === undefined) return expect(engine.languages).toEqual(ocrLanguages);
      const error = await failure(english.image, unsupported);
      expect(error).toMatchObject({ _tag: "UnsupportedLanguage", language: unsupported });
    });

    it("reports bytes that do not decode as InvalidImage", async () => {
      const truncated = { ...english.image, bytes: english.image.bytes.slice(0, 200) };
      expect(await failure(truncated, "eng")).toMatchObject({ _tag: "InvalidImage" });
    });

    describe("under load", () => {
      let small: ManagedRuntime.ManagedRuntime<OcrEngine, DependencyUnavailable> | undefined;
      afterAll(async () => {
        await small?.dispose();
      });

      it("refuses work beyond its queue with EngineBusy, and runs past its deadline into EngineTimeout", async () => {
        small = ManagedRuntime.make(queuedOcrEngineLayer({ maxQueued: 1, deadlineMs: 20_000 })(subject.oneWorkerLayer()));
        const busy = await serviceOf(small);
        const outcomes = await Promise.all(
          Array.from({ length: 4 }, () => Effect.runPromise(Effect.result(busy.recognize({ image: english.image, language: ["eng"], outputFormat: "text" })))),
        );
        const refused = outcomes.filter((outcome) => outcome._tag === "Failure");
        expect(outcomes.filter((outcome) => outcome._tag === "Success")).toHaveLength(2);
        expect(refused).toHaveLength(2);
        for (const outcome of refused) expect(outcome).toMatchObject({ failure: { _tag: "EngineBusy" } });

        const hurried = ManagedRuntime.make(queuedOcrEngineLayer({ maxQueued: 1, deadlineMs: 1 })(subject.oneWorkerLayer()));
        try {
          const late = await serviceOf(hurried);
          const error = await Effect.runPromise(Effect.flip(late.recognize({ image: english.image, language: ["eng"], outputFormat: "text" })));
          expect(error).toMatchObject({ _tag: "EngineTimeout", deadlineMs: 1 });
        } finally {
          await hurried.dispose();
        }
      });

      it("gives up on a page at its deadline in the middle of reading it, and this process goes on to read the next page", async () => {
        // Deadlines that fall while the models run: ending PaddleOCR's onnxruntime thread then
        // (Worker.terminate) aborted the whole process with SIGABRT, this test runner included.
        const outcomes: Array<string> = [];
        for (const deadlineMs of [100, 300, 600]) {
          const midway = ManagedRuntime.make(queuedOcrEngineLayer({ maxQueued: 1, deadlineMs })(subject.oneWorkerLayer()));
          try {
            const engine = await serviceOf(midway);
            const outcome = await Effect.runPromise(Effect.result(engine.recognize({ image: english.image, language: ["eng"], outputFormat: "text" })));
            outcomes.push(outcome._tag === "Success" ? "read" : outcome.failure._tag);
          } finally {
            await midway.dispose();
          }
        }
        // A fast engine may finish the page within the longer deadlines; the shorter ones catch it reading.
        expect(
          outcomes.every((outcome) => outcome === "read" || outcome === "EngineTimeout"),
          outcomes.join(", "),
        ).toBe(true);
        expect(outcomes).toContain("EngineTimeout");
        const next = await Effect.runPromise(engine.recognize({ image: english.image, language: ["eng"], outputFormat: "text" }));
        expect(cerCount(next.text, english.groundTruth).errors / english.groundTruth.length).toBeLessThan(0.05);
      });
    });
  });
