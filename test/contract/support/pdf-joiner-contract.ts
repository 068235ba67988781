import { Effect, type Layer, ManagedRuntime } from "effect";
import sharp from "sharp";
import { beforeAll, describe, expect, it } from "vitest";
import { OcrEngine } from "../../../src/ports/engines/ocr-engine.ts";
import { PdfJoiner } from "../../../src/ports/engines/pdf-joiner.ts";
import { cerCount } from "../../support/character-error-rate.ts";
import { scannedPage } from "../../support/document-fixtures.ts";
import { readPdfBack } from "../../support/poppler.ts";

/**
 * The contract every PdfJoiner adapter keeps, on the pages an OCR engine that writes PDFs
 * (`pdfWriter`) makes of three scanned pages of different sizes.
 */
const texts = ["First page of the contract\nSigned in Lyon", "Second page\nThe parties agree", "Third and last page\nAnnex with prices"];
const widths = [1600, 1200, 1400];

/** Every cross-reference entry points at its object's header, so that a reader need not repair the file. */
const crossReferencesHold = (pdf: Uint8Array) => {
  const text = Buffer.from(pdf).toString("latin1");
  const xrefAt = Number(/startxref\s+(\d+)\s+%%EOF\s*$/u.exec(text)?.[1]);
  const rows = text.slice(xrefAt, text.indexOf("trailer", xrefAt)).split("\n").slice(2, -1);
  return rows.every((row, number) => row.endsWith("f ") || text.startsWith(`${number} 0 obj`, Number(row.slice(0, 10))));
};

export const pdfJoinerContract = (name: string, layer: () => Layer.Layer<PdfJoiner>, pdfWriter: () => Layer.Layer<OcrEngine, unknown>) =>
  describe(`PdfJoiner contract: ${name}`, () => {
    const pages: Array<{ pdf: Uint8Array; text: string }> = [];
    beforeAll(async () => {
      const ocr = ManagedRuntime.make(pdfWriter());
      try {
        for (const [index, text] of texts.entries()) {
          const bytes = await scannedPage(text, widths[index]);
          const { width, height } = await sharp(bytes).metadata();
          const result = await ocr.runPromise(
            Effect.gen(function* () {
              const engine = yield* OcrEngine;
              return yield* engine.recognize({ image: { bytes, format: "jpeg", width: width!, height: height! }, language: ["eng"], outputFormat: "pdf" });
            }),
          );
          if (result.outputFormat !== "pdf") throw new Error("expected pdf");
          pages.push({ pdf: result.pdf, text: result.text });
        }
      } finally {
        await ocr.dispose();
      }
    }, 120_000);
    const joined = (parts: ReadonlyArray<Uint8Array>) =>
      Effect.gen(function* () {
        return yield* (yield* PdfJoiner).join(parts);
      }).pipe(Effect.provide(layer()));
    const join = (parts: ReadonlyArray<Uint8Array>) => Effect.runPromise(joined(parts));

    it("puts the pages together in order, each its own size, text layers and images kept", async () => {
      const joined = await join(pages.map((page) => page.pdf));
      expect(crossReferencesHold(joined)).toBe(true);
      const back = await readPdfBack(joined);
      expect(back.warnings).toBe("");
      expect(back.pages).toBe(3);
      const alone = await Promise.all(pages.map(async (page) => (await readPdfBack(page.pdf)).pageSizes[0]));
      expect(back.pageSizes).toEqual(alone);
      const expected = pages.map((page) => page.text).join("\n");
      expect(cerCount(back.text, expected).errors).toBeLessThanOrEqual(Math.ceil(0.02 * expected.length));
      expect(back.text.indexOf("First")).toBeLessThan(back.text.indexOf("Second"));
      expect(back.text.indexOf("Second")).toBeLessThan(back.text.indexOf("Third"));
      // Every page is drawn, not blank: the scan is there under the text.
      for (const rendering of back.renderings) expect((await sharp(rendering).stats()).channels[0]!.min).toBeLessThan(100);
    });

    it("gives one page back as a document of one page", async () => {
      const back = await readPdfBack(await join(pages.slice(0, 1).map((page) => page.pdf)));
      expect(back).toMatchObject({ pages: 1, warnings: "" });
    });

    it("fails with DependencyUnavailable on bytes that are not such a PDF", async () => {
      const error = await Effect.runPromise(Effect.flip(joined([new TextEncoder().encode("%PDF-1.7\nnot really\n%%EOF\n")])));
      expect(error._tag).toBe("DependencyUnavailable");
    });
  });
