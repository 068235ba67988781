import fs from "node:fs";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { embeddedImagePdf, nestedFormsPdf, pdfOf, scannedPage } from "../support/document-fixtures.ts";
import { watchHealthz } from "../support/healthz-watch.ts";
import { provisionAccount, type ServiceProcess, startService } from "../support/service-process.ts";

/**
 * PDFs built to exhaust the document engine (PDFium in WebAssembly), sent to POST /api/ocr of the
 * real service over HTTPS (issue 24, cases 1 and 2): a bomb of nested forms meets the engine's
 * memory cap and is refused without taking document OCR down; an embedded image too large to
 * decode is refused from its dictionary before anything is drawn. Neither is charged.
 */
let service: ServiceProcess;
let page: Uint8Array;

beforeAll(async () => {
  service = await startService();
  page = await scannedPage("Statement of account\nClosing balance 980.75");
});
afterAll(async () => service?.stop());

const MiB = 2 ** 20;
const b64 = (bytes: Uint8Array) => Buffer.from(bytes).toString("base64");
const ocr = (key: string, bytes: Uint8Array) => service.client.request("POST", "/api/ocr", { key, body: { image: b64(bytes), language: "eng" } });
const used = async (key: string): Promise<number> => (await service.client.request("GET", "/api/user/profile", { key })).json.data.quota.used;
const rssBytes = () => Number(/VmRSS:\s+(\d+) kB/.exec(fs.readFileSync(`/proc/${service.pid}/status`, "utf8"))?.[1]) * 1024;
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** The service's highest RSS while `work` runs, sampled every 20 ms. */
const peakRssDuring = async <A>(work: Promise<A>): Promise<{ readonly result: A; readonly peak: number }> => {
  let peak = rssBytes();
  let done = false;
  const sampling = (async () => {
    while (!done) {
      peak = Math.max(peak, rssBytes());
      await sleep(20);
    }
  })();
  const result = await work.finally(() => (done = true));
  await sampling;
  return { result, peak };
};

describe("a PDF that exhausts the document engine", () => {
  it("a 4 KB bomb of nested forms gets 413 within 3 s, uncharged; a well-formed PDF 5 s later gets 200; RSS is back within 60 s; /healthz answers throughout", async () => {
    const key = (await provisionAccount(service.env, "pro")).keys[0]!.key;
    const good = await pdfOf([page]);
    // The thread and PDFium loaded and idle again, as on a service that has read documents.
    expect((await ocr(key, good)).status).toBe(200);
    const idle = rssBytes();
    const before = await used(key);
    const bomb = nestedFormsPdf(8);
    expect(bomb.length).toBeLessThan(5000);

    const watch = watchHealthz(service.client);
    const started = performance.now();
    const { result: refused, peak } = await peakRssDuring(ocr(key, bomb));
    const refusedMs = performance.now() - started;
    expect(refused.status, JSON.stringify(refused.json)).toBe(413);
    expect(refused.json.error).toMatchObject({
      code: "PAYLOAD_TOO_LARGE",
      message: expect.stringMatching(/page 1 of the PDF.*MiB the document engine may use/),
    });
    // The thread's heap fills at the machine's pace: 1.2–1.9 s on the machines CI has used, 2.1–2.2 s on
    // a slower one of the same kind; minutes would mean the bound no longer holds.
    expect(refusedMs).toBeLessThan(3000);

    await sleep(5000);
    const afterMs = performance.now();
    const read = await ocr(key, good);
    const readMs = performance.now() - afterMs;
    expect(read.status, JSON.stringify(read.json)).toBe(200);
    expect(read.json.data.text).toContain("Statement of account");

    let settled = rssBytes();
    const settling = performance.now();
    while (settled > idle + 512 * MiB && performance.now() - settling < 60_000) {
      await sleep(500);
      settled = rssBytes();
    }
    const health = await watch.stop();
    console.log(
      `PDF bomb (${bomb.length} bytes): 413 in ${Math.round(refusedMs)} ms, well-formed PDF 5 s later 200 in ${Math.round(readMs)} ms; ` +
        `RSS idle ${Math.round(idle / MiB)} MiB, peak ${Math.round(peak / MiB)} MiB, ${Math.round(settled / MiB)} MiB after ${Math.round(performance.now() - settling)} ms more; ` +
        `/healthz longest ${Math.round(health.longestMs)} ms over ${health.answers} answers`,
    );
    expect(settled).toBeLessThanOrEqual(idle + 512 * MiB);
    expect(health.longestMs).toBeLessThan(250);
    // The bomb's page was reserved and released; the well-formed page is the one charged.
    expect(await used(key)).toBe(before + 1);
  }, 120_000);

  it("a 1.2 MB PDF holding a 20000×20000 RGB image gets 413 from the image's dictionary, before anything is decoded, uncharged", async () => {
    const key = (await provisionAccount(service.env, "pro")).keys[0]!.key;
    const pdf = await embeddedImagePdf(20_000, 20_000);
    expect(pdf.length).toBeLessThan(1.5 * MiB);
    const idle = rssBytes();
    const started = performance.now();
    const { result: reply, peak } = await peakRssDuring(ocr(key, pdf));
    const ms = performance.now() - started;
    console.log(
      `20000×20000 embedded image (${pdf.length} bytes): ${reply.status} in ${Math.round(ms)} ms, RSS ${Math.round(idle / MiB)} -> peak ${Math.round(peak / MiB)} MiB`,
    );
    expect(reply.status, JSON.stringify(reply.json)).toBe(413);
    expect(reply.json.error).toMatchObject({ code: "PAYLOAD_TOO_LARGE", message: expect.stringContaining("20000×20000") });
    expect(ms).toBeLessThan(2000);
    expect(peak - idle).toBeLessThan(256 * MiB);
    expect(await used(key)).toBe(0);
  }, 120_000);
});
