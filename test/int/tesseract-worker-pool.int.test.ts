import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import sharp from "sharp";
import { afterEach, describe, expect, it } from "vitest";
import { estimatedWorkerBytes, workerSetupFor } from "../../src/adapters/ocr/tesseract/tesseract-language-data.ts";
import { startWorker, TesseractWorkerPool } from "../../src/adapters/ocr/tesseract/tesseract-worker-pool.ts";
import { type OcrLanguage, ocrLanguages } from "../../src/ports/engines/ocr-engine.ts";

/**
 * The tesseract.js worker pool with the real models from `@tesseract.js-data/*`: every language
 * the service offers starts and reads, a model that cannot load fails its start instead of
 * hanging, a caller's deadline holds while a model loads, and the idle workers stay within
 * their budget, least recently used stopped first.
 */
let pool: TesseractWorkerPool | undefined;
afterEach(async () => {
  await pool?.terminate();
  pool = undefined;
});

const line = async (text: string) =>
  new Uint8Array(
    await sharp({ text: { text, font: "DejaVu Sans 28", dpi: 72 } })
      .extend({ top: 24, bottom: 24, left: 24, right: 24, background: "#000000" })
      .negate({ alpha: false })
      .png()
      .toBuffer(),
  );
const never = () => new AbortController().signal;
const read = (model: ReadonlyArray<OcrLanguage>, image: Uint8Array, signal = never()) =>
  pool!.withWorker(model, signal, async (worker) => (await worker.recognize(Buffer.from(image))).data.text);

describe("the tesseract worker pool", () => {
  it("starts a worker of every language the service offers, and reads digits with it", async () => {
    pool = await TesseractWorkerPool.start([], 0);
    const digits = await line("2024 1955 3071");
    const unread: Array<string> = [];
    const started = performance.now();
    for (const language of ocrLanguages) {
      const text = await read([language], digits);
      if (!/2024/.test(text.replace(/\s/g, ""))) unread.push(`${language}: ${JSON.stringify(text)}`);
    }
    console.log(
      `${ocrLanguages.length} languages started and read in ${Math.round(performance.now() - started)} ms; digits missed by: ${unread.join("; ") || "none"}`,
    );
    expect(ocrLanguages.length).toBeGreaterThanOrEqual(60);
    // Every model's character set has Western digits; a model may still misread one short line (eus does).
    expect(unread.length, unread.join("\n")).toBeLessThanOrEqual(2);
  }, 300_000);

  it("fails the start of a worker whose model cannot be loaded, at once, instead of waiting forever", async () => {
    const empty = fs.mkdtempSync(path.join(os.tmpdir(), "no-models-"));
    const setup = await workerSetupFor(["eng"]);
    const started = performance.now();
    await expect(startWorker({ ...setup, options: { ...setup.options, langPath: empty } })).rejects.toThrow(/eng\.traineddata/);
    expect(performance.now() - started).toBeLessThan(5000);
    fs.rmSync(empty, { recursive: true });
  });

  it("answers a caller whose deadline passes while a model loads at once, and keeps the worker for the next one", async () => {
    pool = await TesseractWorkerPool.start([], 256 * 2 ** 20);
    const deadline = new AbortController();
    setTimeout(() => deadline.abort(new Error("deadline")), 20);
    const started = performance.now();
    await expect(read(["chi_tra"], await line("1"), deadline.signal)).rejects.toThrow("deadline");
    expect(performance.now() - started).toBeLessThan(200);
    await expect.poll(() => pool!.idleModels, { timeout: 30_000 }).toEqual(["chi_tra"]);
  }, 60_000);

  it("keeps idle workers within the budget, the least recently used stopped first", async () => {
    const bytes = Object.fromEntries(await Promise.all((["eng", "deu", "fra"] as const).map(async (l) => [l, await estimatedWorkerBytes([l])] as const)));
    const budget = bytes.eng! + bytes.deu! + bytes.fra! - 1;
    pool = await TesseractWorkerPool.start([], budget);
    const image = await line("Budget");
    for (const language of ["eng", "deu", "fra"] as const) await read([language], image);
    expect(pool.idleModels).toEqual(["deu", "fra"]);
    await read(["deu"], image);
    expect(pool.idleModels).toEqual(["fra", "deu"]);
    await read(["eng"], image);
    expect(pool.idleModels).toEqual(["deu", "eng"]);
    expect(pool.idleBytes).toBeLessThanOrEqual(budget);
    // Several languages read together are a worker of their own.
    await read(["eng", "deu"], image);
    expect(pool.idleModels.at(-1)).toBe("eng+deu");
    expect(pool.idleBytes).toBeLessThanOrEqual(budget);
  }, 120_000);

  it("fails a job whose worker's thread is killed mid-job at once, and serves the next job with a fresh worker", async () => {
    pool = await TesseractWorkerPool.start([[["eng"], 1]], 256 * 2 ** 20);
    const digits = await line("2024 1955 3071");
    let killed: unknown;
    const started = performance.now();
    const job = pool.withWorker(["eng"], never(), (worker) => {
      killed = worker;
      const reading = worker.recognize(Buffer.from(digits));
      // The Node thread under the tesseract.js worker, ended as an out-of-memory kill would end it.
      void (worker as unknown as { readonly worker: { readonly terminate: () => Promise<number> } }).worker.terminate();
      return reading;
    });
    await expect(job).rejects.toThrow(/exited/);
    expect(performance.now() - started).toBeLessThan(5000);
    expect(pool.idleModels).toEqual([]);
    const next = await pool.withWorker(["eng"], never(), async (worker) => ({ worker, text: (await worker.recognize(Buffer.from(digits))).data.text }));
    expect(next.worker).not.toBe(killed);
    expect(next.text.replace(/\s/g, "")).toContain("2024");
  }, 60_000);

  it("never lends again a worker whose job failed: its module may have aborted", async () => {
    pool = await TesseractWorkerPool.start([[["eng"], 1]], 256 * 2 ** 20);
    let poisoned: unknown;
    await expect(
      pool.withWorker(["eng"], never(), (worker) => {
        poisoned = worker;
        return Promise.reject(new Error("RuntimeError: Aborted(OOM)"));
      }),
    ).rejects.toThrow("Aborted");
    expect(pool.idleModels).toEqual([]);
    const text = await pool.withWorker(["eng"], never(), async (worker) => {
      expect(worker).not.toBe(poisoned);
      return (await worker.recognize(Buffer.from(await line("2024")))).data.text;
    });
    expect(text).toContain("2024");
  }, 60_000);
});
