import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { pdfOf, scannedPage } from "../support/document-fixtures.ts";
import { plainRequest } from "../support/https-client.ts";
import { metricsPortOf, provisionAccount, type ServiceProcess, startService } from "../support/service-process.ts";

/**
 * A document's pages read in parallel by the real engine (tesseract.js, OCR_WORKERS=2) through
 * POST /api/ocr over HTTPS: two pages are in the engine at once, the pages come back in order and
 * read exactly as each page read alone, and another account's one-page request is answered while
 * a long document is still being read (accounts take turns at the engine).
 */
let service: ServiceProcess;
let metricsPort: number;
const truths = [
  "Statement of account\nAccount number 4471 0923\nOpening balance 1,250.00",
  "Transfers in November\nRent paid on 3 November 640.00\nGroceries 129.25",
  "Third page of notes\nThe meeting moved to Friday\nBring the signed contract",
  "Fourth and last page\nDelivery expected on 12 December\nSigned by the manager",
];
const pages: Array<Uint8Array> = [];
const slowMs = 240_000;

beforeAll(async () => {
  service = await startService({ env: { OCR_WORKERS: "2", OCR_WARM_LANGUAGES: "eng", METRICS_PORT: "0" } });
  metricsPort = metricsPortOf(service);
  for (const truth of truths) pages.push(await scannedPage(truth));
});
afterAll(async () => service?.stop());

const b64 = (bytes: Uint8Array) => Buffer.from(bytes).toString("base64");
const ocr = (key: string, image: Uint8Array) => service.client.request("POST", "/api/ocr", { key, body: { image: b64(image), language: "eng" } });

/** OCR jobs running and waiting in the engine now (its_engine_in_flight): with 2 slots and no other work, 2 means two pages read at once. */
const ocrInEngine = async () => {
  const text = (await plainRequest(metricsPort, "GET", "/metrics")).body.toString();
  const line = text.split("\n").find((l) => l.startsWith('its_engine_in_flight{engine="ocr"}'));
  return Number(line?.slice(line.lastIndexOf(" ") + 1) ?? 0);
};

/** The most OCR jobs in the engine at once while `work` runs, sampled every 20 ms. */
const peakInEngineDuring = async <A>(work: Promise<A>): Promise<{ result: A; peak: number }> => {
  let peak = 0;
  let done = false;
  const sampling = (async () => {
    while (!done) {
      peak = Math.max(peak, await ocrInEngine());
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
  })();
  const result = await work.finally(() => (done = true));
  await sampling;
  return { result, peak };
};

interface Page {
  readonly page: number;
  readonly text: string;
  readonly confidence: number;
  readonly language: string;
}

describe("POST /api/ocr reads a document's pages in parallel", () => {
  it(
    "reads a 4-page PDF two pages at a time on 2 workers, in page order, each page as read alone",
    async () => {
      const key = (await provisionAccount(service.env, "pro")).keys[0]!.key;
      // The sequential reading: each page as a one-page PDF, one request after the other.
      const alone: Array<Page> = [];
      for (const page of pages) {
        const reply = await ocr(key, await pdfOf([page]));
        expect(reply.status, JSON.stringify(reply.json)).toBe(200);
        alone.push(reply.json.data.pages[0]);
      }

      const { result: reply, peak } = await peakInEngineDuring(ocr(key, await pdfOf(pages)));
      expect(reply.status, JSON.stringify(reply.json)).toBe(200);
      expect(peak).toBeGreaterThanOrEqual(2);
      const read = reply.json.data.pages as Array<Page>;
      expect(read.map((page) => page.page)).toEqual([1, 2, 3, 4]);
      expect(read.map(({ text, confidence, language }) => ({ text, confidence, language }))).toEqual(
        alone.map(({ text, confidence, language }) => ({ text, confidence, language })),
      );
      expect(reply.json.data.text).toBe(read.map((page) => page.text).join("\n\n"));
    },
    slowMs,
  );

  it(
    "answers another account's one-page request while a long document is still being read",
    async () => {
      const [a, b] = await Promise.all([provisionAccount(service.env, "pro"), provisionAccount(service.env, "pro")]);
      const finished: Array<string> = [];
      const document = Array.from({ length: 8 }, (_, i) => pages[i % pages.length]!);
      const long = ocr(a.keys[0]!.key, await pdfOf(document)).then((reply) => {
        finished.push("document");
        return reply;
      });
      // The document's pages hold both workers before B asks.
      for (let waited = 0; (await ocrInEngine()) < 2; waited += 20) {
        if (waited > 60_000) throw new Error("the document's pages never reached the engine");
        await new Promise((resolve) => setTimeout(resolve, 20));
      }
      const one = await ocr(b.keys[0]!.key, pages[0]!);
      finished.push("one page");
      expect(one.status, JSON.stringify(one.json)).toBe(200);
      expect(one.json.data.text).toContain("Statement of account");
      const reply = await long;
      expect(reply.status, JSON.stringify(reply.json)).toBe(200);
      expect((reply.json.data.pages as Array<Page>).map((page) => page.page)).toEqual([1, 2, 3, 4, 5, 6, 7, 8]);
      expect(finished).toEqual(["one page", "document"]);
    },
    slowMs,
  );
});
