import { Effect, Exit } from "effect";
import { describe, expect, it } from "vitest";
import { readDocumentPages } from "../../src/application/transformations/ocr-document-pages.ts";
import type { OpenedDocument } from "../../src/ports/engines/document-reader.ts";
import { EngineTenant } from "../../src/ports/engines/engine-tenant.ts";
import type { ValidatedImage } from "../../src/ports/engines/image.ts";
import type { OcrEngineShape, OcrRequest } from "../../src/ports/engines/ocr-engine.ts";
import { InvalidImage } from "../../src/ports/errors.ts";
import { queuedOcrEngine } from "../../src/queued-ocr-engine.ts";

/**
 * A document's pages through the OCR engine's real capacity (queued-ocr-engine.ts and
 * engine-capacity.ts: slots, turns by account, deadlines), with a recognition double in place of
 * Tesseract that notes when each page is read: pages are read as many at once as the engine has
 * workers, one more is drawn meanwhile, no more are held, the result keeps page order, and another
 * account's one-page request takes its turn among a long document's pages.
 */
const sleep = (ms: number, signal?: AbortSignal) =>
  new Promise<void>((resolve, reject) => {
    const timer = setTimeout(resolve, ms);
    signal?.addEventListener("abort", () => {
      clearTimeout(timer);
      reject(new Error("aborted"));
    });
  });

interface Trace {
  readonly events: Array<{ readonly at: number; readonly what: "drawn" | "start" | "end" | "aborted"; readonly label: string }>;
  /** Recognitions running now, and the most at once. */
  readonly reading: () => number;
  readonly mostReading: () => number;
  /** Pages drawn and not yet read to the end, the most at once. */
  readonly mostHeld: () => number;
}

/** A page's image names its document and page; the double reads that back as its text. */
const imageOf = (label: string): ValidatedImage => ({ bytes: new TextEncoder().encode(label), format: "png", width: 1, height: 1 });
const labelOf = (request: OcrRequest) => new TextDecoder().decode(request.image.bytes);

/** An engine of `workers` whose recognition takes `msFor(label)`, or fails for `failing`. */
const engineWith = (workers: number, msFor: (label: string) => number, failing?: string) => {
  const events: Trace["events"] = [];
  const t0 = performance.now();
  const note = (what: Trace["events"][number]["what"], label: string) => events.push({ at: performance.now() - t0, what, label });
  let reading = 0;
  let held = 0;
  const peaks = { reading: 0, held: 0 };
  const engine = queuedOcrEngine(
    {
      dependency: "double",
      languages: ["eng"],
      workers,
      recognizeOnce: async (request, signal) => {
        const label = labelOf(request);
        reading += 1;
        peaks.reading = Math.max(peaks.reading, reading);
        note("start", label);
        try {
          if (label === failing) throw new Error("this page breaks the engine");
          await sleep(msFor(label), signal);
          note("end", label);
          return { text: `text of ${label}`, language: "eng", confidence: 90, page: { width: 100, height: 100 } };
        } catch (error) {
          note("aborted", label);
          throw error;
        } finally {
          reading -= 1;
          held -= 1;
        }
      },
    },
    { maxQueued: 64, deadlineMs: 10_000 },
  );
  const trace: Trace = { events, reading: () => reading, mostReading: () => peaks.reading, mostHeld: () => peaks.held };
  /** A document whose pages take `drawMs` to draw, like the PDF renderer's one thread. */
  const documentOf = (name: string, pages: number, drawMs = 20): OpenedDocument => ({
    format: "pdf",
    pages,
    page: (index) =>
      Effect.promise(async () => {
        await sleep(drawMs);
        held += 1;
        peaks.held = Math.max(peaks.held, held);
        note("drawn", `${name}${index + 1}`);
        return imageOf(`${name}${index + 1}`);
      }),
  });
  return { engine, trace, documentOf };
};

const read = (engine: OcrEngineShape, document: OpenedDocument, tenant = "account-a") =>
  Effect.runPromise(readDocumentPages(document, engine, { language: ["eng"], outputFormat: "text" }).pipe(Effect.provideService(EngineTenant, tenant)));

/** Two intervals [start, end] of different pages that overlap. */
const overlapping = (trace: Trace) => {
  const spans = new Map<string, { start: number; end: number }>();
  for (const event of trace.events) {
    if (event.what === "start") spans.set(event.label, { start: event.at, end: Number.POSITIVE_INFINITY });
    if (event.what === "end") spans.get(event.label)!.end = event.at;
  }
  const list = [...spans.values()];
  return list.some((a, i) => list.some((b, j) => i !== j && a.start < b.end && b.start < a.end));
};

describe("a document's pages through the OCR engine's capacity", () => {
  it("reads a 4-page document two pages at once on 2 workers, in page order, as the sequential reading does", async () => {
    // Page 1 is the slowest, so pages finish out of order.
    const msFor = (label: string) => (label.endsWith("1") ? 300 : 120);
    const sequential = engineWith(1, msFor);
    expect(sequential.engine.parallelism).toBe(1);
    const alone = await read(sequential.engine, sequential.documentOf("d", 4));

    const parallel = engineWith(2, msFor);
    expect(parallel.engine.parallelism).toBe(2);
    const pages = await read(parallel.engine, parallel.documentOf("d", 4));

    expect(overlapping(parallel.trace)).toBe(true);
    expect(overlapping(sequential.trace)).toBe(false);
    expect(parallel.trace.mostReading()).toBe(2);
    // Two being read and one drawn ahead, never more.
    expect(parallel.trace.mostHeld()).toBeLessThanOrEqual(3);
    expect(pages.map((page) => page.page)).toEqual([1, 2, 3, 4]);
    expect(pages.map((page) => page.text)).toEqual(["text of d1", "text of d2", "text of d3", "text of d4"]);
    expect(pages).toEqual(alone);
    // Page 3 was drawn while pages 1 and 2 were being read, before either ended.
    const at = (what: string, label: string) => parallel.trace.events.find((event) => event.what === what && event.label === label)!.at;
    expect(at("drawn", "d3")).toBeLessThan(Math.min(at("end", "d1"), at("end", "d2")));
  });

  it("holds at most workers + 1 pages of a 12-page document, on 1, 2 and 3 workers", async () => {
    for (const workers of [1, 2, 3]) {
      const { engine, trace, documentOf } = engineWith(workers, () => 40);
      const pages = await read(engine, documentOf("d", 12, 5));
      expect(pages.map((page) => page.page)).toEqual(Array.from({ length: 12 }, (_, i) => i + 1));
      expect(trace.mostReading(), `${workers} workers`).toBe(workers);
      expect(trace.mostHeld(), `${workers} workers`).toBeLessThanOrEqual(workers + 1);
    }
  });

  it("lets another account's one-page request take its turn among a long document's pages", async () => {
    const { engine, trace, documentOf } = engineWith(2, () => 100);
    const document = read(engine, documentOf("a", 12), "account-a");
    await sleep(150);
    const sent = performance.now();
    const other = await Effect.runPromise(
      engine.recognize({ image: imageOf("b1"), language: ["eng"], outputFormat: "text" }).pipe(Effect.provideService(EngineTenant, "account-b")),
    );
    const waited = performance.now() - sent;
    const pages = await document;
    expect(other.text).toBe("text of b1");
    // B waits for one of A's pages to end (100 ms), not for A's document (12 pages on 2 workers: 600 ms).
    expect(waited).toBeLessThan(400);
    const ended = trace.events.filter((event) => event.what === "end").map((event) => event.label);
    expect(ended.indexOf("b1")).toBeLessThan(ended.indexOf("a8"));
    expect(pages.map((page) => page.text)).toEqual(Array.from({ length: 12 }, (_, i) => `text of a${i + 1}`));
  });

  it("fails the document on its first failing page and stops the pages being read with it", async () => {
    const { engine, trace, documentOf } = engineWith(2, (label) => (label === "d2" ? 2000 : 100), "d3");
    const exit = await Effect.runPromiseExit(
      readDocumentPages(documentOf("d", 6), engine, { language: ["eng"], outputFormat: "text" }).pipe(Effect.provideService(EngineTenant, "account-a")),
    );
    expect(Exit.isFailure(exit)).toBe(true);
    // Page 2 was still being read when page 3 failed: it is stopped, not left to finish.
    expect(trace.events.some((event) => event.what === "aborted" && event.label === "d2")).toBe(true);
    expect(trace.events.some((event) => event.what === "end" && event.label === "d2")).toBe(false);
    await sleep(50);
    expect(trace.reading()).toBe(0);
  });

  it("fails with the page's own error when a page cannot be drawn", async () => {
    const { engine, documentOf } = engineWith(2, () => 50);
    const good = documentOf("d", 4);
    const broken: OpenedDocument = {
      ...good,
      page: (index) => (index === 2 ? Effect.fail(new InvalidImage({ message: "page 3 of the PDF cannot be read" })) : good.page(index)),
    };
    const exit = await Effect.runPromiseExit(
      readDocumentPages(broken, engine, { language: ["eng"], outputFormat: "text" }).pipe(Effect.provideService(EngineTenant, "account-a")),
    );
    expect(exit).toMatchObject({ _tag: "Failure" });
    expect(JSON.stringify(exit)).toContain("page 3 of the PDF cannot be read");
  });
});
