import type { Worker } from "node:worker_threads";
import { afterEach, describe, expect, it } from "vitest";
import { type DocumentThread, documentThread, DocumentTooCostly } from "../../src/adapters/documents/document-thread-client.ts";
import type { InspectedPdf } from "../../src/adapters/documents/pdfium-documents.ts";
import { nestedFormsPdf, pdfOf } from "../support/document-fixtures.ts";

/**
 * The document thread (PDFium in WebAssembly) killed or poisoned mid-job: the job fails at once,
 * and the next one is served by a fresh thread (issue 24).
 */
let thread: DocumentThread | undefined;
const threads: Array<Worker> = [];
const seen = (worker: Worker) => threads.push(worker);
afterEach(async () => {
  process.off("worker", seen);
  threads.length = 0;
  await thread?.terminate();
});

const start = () => {
  process.on("worker", seen);
  thread = documentThread({ idleMs: 60_000, pdfiumMemoryBytes: 256 * 2 ** 20 });
  return thread;
};
const render = (pdf: Uint8Array) => thread!.run({ kind: "pdf-render", bytes: pdf, page: 0, dpi: 300, maxPixels: 16_000_000 }, 30_000);

describe("the document thread", () => {
  it("fails the job whose thread is killed mid-job at once, and serves the next on a fresh thread", async () => {
    const documents = start();
    const pdf = await pdfOf(3);
    expect(await documents.run<InspectedPdf>({ kind: "pdf-inspect", bytes: pdf }, 5000)).toMatchObject({ pages: 3 });
    // The bomb keeps PDFium busy for a while before it meets the cap: killed before that.
    const job = render(nestedFormsPdf(8));
    await new Promise((resolve) => setTimeout(resolve, 50));
    const killedAt = performance.now();
    await threads[0]!.terminate();
    await expect(job).rejects.toThrow(/exited/);
    expect(performance.now() - killedAt).toBeLessThan(1000);
    expect(await documents.run<InspectedPdf>({ kind: "pdf-inspect", bytes: pdf }, 5000)).toMatchObject({ pages: 3 });
    expect(threads).toHaveLength(2);
  });

  it("is discarded when PDFium meets its memory cap: that job is refused as too costly, the next is served by a fresh thread", async () => {
    start();
    const started = performance.now();
    await expect(render(nestedFormsPdf(8))).rejects.toThrow(DocumentTooCostly);
    console.log(`PDF bomb refused by a 256 MiB PDFium in ${Math.round(performance.now() - started)} ms (thread start included)`);
    const page = await render(await pdfOf(1));
    expect(page).toMatchObject({ width: 850, height: 1100 });
    expect(threads).toHaveLength(2);
  });
});
