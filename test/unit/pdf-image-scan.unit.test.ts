import { readFileSync } from "node:fs";
import { createRequire } from "node:module";
import { describe, expect, it } from "vitest";
import { pdfImageSizes } from "../../src/adapters/documents/pdf-image-scan.ts";
import { withMemoryMaximum } from "../../src/adapters/documents/wasm-memory-limit.ts";
import { nestedFormsPdf, pdfOf } from "../support/document-fixtures.ts";

/**
 * The scan that admits a PDF by the images it holds, before PDFium decodes any (issue 24), and
 * the cap on PDFium's memory written into its WebAssembly binary.
 */
/** The WebAssembly API, typed here: this project's TypeScript settings carry no DOM library. */
const wasm = (
  globalThis as unknown as {
    readonly WebAssembly: {
      readonly instantiate: (binary: Uint8Array) => Promise<{ readonly instance: { readonly exports: Record<string, unknown> } }>;
      readonly validate: (binary: Uint8Array) => boolean;
    };
  }
).WebAssembly;
const pdf = (text: string) => new TextEncoder().encode(`%PDF-1.4\n${text}\n%%EOF\n`);

describe("the sizes of a PDF's images, from their dictionaries", () => {
  it("reads every image XObject's /Width and /Height, and nothing else", async () => {
    expect(pdfImageSizes(await pdfOf(2))).toEqual([
      { width: 850, height: 1100 },
      { width: 850, height: 1100 },
    ]);
    expect(pdfImageSizes(nestedFormsPdf(8))).toEqual([]);
  });

  it("resolves a size given by reference, reads escaped names, and skips stream data that looks like a dictionary", () => {
    const file = pdf(
      [
        "5 0 obj\n<< /Type /XObject /Subtype /Im#61ge /Width 7 0 R /Height 300 /DecodeParms << /Columns 9 >> /Length 44 >>",
        "stream\n<< /Subtype /Image /Width 99999 /Height 99999 >>\nendstream\nendobj",
        "7 0 obj\n1200\nendobj",
        "8 0 obj\n<< /Subtype /Image /Width 9 0 R /Height 10 >>\nendobj",
      ].join("\n"),
    );
    // Object 9 is nowhere: that image is left to the engine's memory cap.
    expect(pdfImageSizes(file)).toEqual([{ width: 1200, height: 300 }]);
  });

  it("is linear: 2 MiB of each hostile repetition (quadratic work would take minutes) read within a second and a half", () => {
    const units = ["[", "<<", "(", "<", "9 ", "/a", "1 0 obj << /Subtype /Image /Width 2 /Height 2 >> endobj\n", "1 0 obj<</Length 99999999>>stream\n"];
    for (const unit of units) {
      const bytes = Buffer.alloc(2 * 2 ** 20, unit, "latin1");
      const started = performance.now();
      pdfImageSizes(bytes);
      expect(performance.now() - started, JSON.stringify(unit)).toBeLessThan(1500);
    }
  });
});

describe("the memory maximum of a WebAssembly binary", () => {
  // A module of one memory (1 page, at most 100) that it exports: the smallest one that shows the cap.
  const tiny = Uint8Array.from([
    ...[0x00, 0x61, 0x73, 0x6d, 0x01, 0x00, 0x00, 0x00],
    ...[0x05, 0x04, 0x01, 0x01, 0x01, 0x64],
    ...[0x07, 0x0a, 0x01, 0x06, ...new TextEncoder().encode("memory"), 0x02, 0x00],
  ]);
  const memoryOf = async (binary: Uint8Array) => (await wasm.instantiate(binary)).instance.exports["memory"] as { readonly grow: (pages: number) => number };

  it("is lowered to the cap: growing past it is refused", async () => {
    expect((await memoryOf(tiny)).grow(50)).toBe(1);
    const capped = await memoryOf(withMemoryMaximum(tiny, 3 * 65_536));
    expect(capped.grow(2)).toBe(1);
    expect(() => capped.grow(1)).toThrow(RangeError);
  });

  it("leaves PDFium's module valid", () => {
    const pdfium = new Uint8Array(readFileSync(createRequire(import.meta.url).resolve("@hyzyla/pdfium/pdfium.wasm")));
    expect(wasm.validate(withMemoryMaximum(pdfium, 256 * 2 ** 20))).toBe(true);
  });
});
