import { readdirSync, readFileSync } from "node:fs";
import os from "node:os";
import { Effect, Layer } from "effect";
import sharp from "sharp";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { openTesseractCli } from "../../src/adapters/ocr/tesseract/tesseract-cli-models.ts";
import { TesseractCliReaders } from "../../src/adapters/ocr/tesseract/tesseract-cli-readers.ts";
import { TesseractOcrEngine } from "../../src/adapters/ocr/tesseract/tesseract-ocr-engine.ts";
import { renderSample } from "../support/ocr-corpus.ts";

/**
 * The native Tesseract engine's own duties, beside the OcrEngine contract it passes: it will not
 * start without a CLI, a reading whose caller leaves ends its process at once, and nothing a
 * reading writes outlives it.
 */
const readingFolders = () => readdirSync(os.tmpdir()).filter((name) => name.startsWith("tesseract-read-")).length;
/** This process's children named `tesseract`. */
const tesseractProcesses = () =>
  readdirSync("/proc")
    .filter((name) => /^\d+$/u.test(name))
    .filter((pid) => {
      try {
        const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
        return stat.includes("(tesseract)") && Number(stat.split(") ")[1]?.split(" ")[1]) === process.pid;
      } catch {
        return false;
      }
    });

describe("the native Tesseract engine", () => {
  let readers: TesseractCliReaders;
  let page: Buffer;
  /** Eight pages stacked: read undisturbed it takes seconds, so a process gone soon after the caller left was stopped. */
  let longPage: Buffer;

  beforeAll(async () => {
    readers = new TesseractCliReaders(await openTesseractCli("tesseract", ["eng"], "packaged"));
    page = Buffer.from((await renderSample({ language: "eng", layout: "paragraph", variant: "clean", font: "DejaVu Sans", fontSize: 22, textIndex: 0 })).png);
    const { width, height } = await sharp(page).metadata();
    longPage = await sharp({ create: { width, height: height * 8, channels: 3, background: "white" } })
      .composite(Array.from({ length: 8 }, (_, index) => ({ input: page, top: index * height, left: 0 })))
      .png()
      .toBuffer();
  });
  afterAll(() => readers.terminate());

  it("refuses to start without a tesseract 5 CLI, naming it", async () => {
    const layer = TesseractOcrEngine.layer({ runtime: "native", command: "/nonexistent/tesseract", languages: ["eng"] });
    const error = await Effect.runPromise(Effect.flip(Effect.scoped(Layer.build(layer))));
    expect(error).toMatchObject({ _tag: "DependencyUnavailable", dependency: "tesseract" });
    expect(String(error.cause)).toContain("/nonexistent/tesseract");
  });

  it("stops the process of a reading whose caller leaves, and leaves no files behind", async () => {
    const before = readingFolders();
    const leaving = new AbortController();
    const reading = readers.withWorker(["eng"], leaving.signal, (reader) => reader.recognize(longPage, {}, { blocks: true }));
    // Polled, not slept: on a loaded machine the process can take longer than any fixed wait to start.
    await vi.waitFor(() => expect(tesseractProcesses().length).toBeGreaterThan(0), { timeout: 10_000, interval: 10 });
    leaving.abort(new Error("the caller left"));
    await expect(reading).rejects.toThrow("the caller left");
    await vi.waitFor(() => expect(tesseractProcesses()).toEqual([]), { timeout: 1_000, interval: 20 });
    expect(readingFolders()).toBe(before);
  });

  it("reads the page's words with boxes and the mean word confidence", async () => {
    const { data } = await readers.withWorker(["eng"], new AbortController().signal, (reader) => reader.recognize(page, {}, { blocks: true }));
    const words = (data.blocks ?? []).flatMap((block) => block.paragraphs.flatMap((paragraph) => paragraph.lines.flatMap((line) => line.words)));
    expect(words[0]?.text).toBe("Dear");
    expect(data.text.startsWith("Dear")).toBe(true);
    expect(data.confidence).toBeGreaterThan(80);
    for (const word of words) expect(word.bbox.x1).toBeGreaterThan(word.bbox.x0);
  });
});
