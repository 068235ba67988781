import sharp from "sharp";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { cerCount, cerPercent } from "../support/character-error-rate.ts";
import { scannedPage, tiffOf } from "../support/document-fixtures.ts";
import { readPdfBack } from "../support/poppler.ts";
import { provisionAccount, type ServiceProcess, startService } from "../support/service-process.ts";

/**
 * outputFormat "pdf" over real HTTPS against the service process: the searchable PDF fetched
 * through data.resultUrl and read back with Poppler (text layer, pages, drawing), as a reader
 * would open it; one page per page of a multi-page TIFF, each charged.
 */
let service: ServiceProcess;
const truths = [
  "Lease agreement\nThe tenant pays 840.00 each month\nDeposit held 1,680.00",
  "Schedule of repairs\nKitchen tap replaced 12 March\nBoiler serviced 2 April",
  "Signatures\nSigned in Leeds on 5 May\nWitnessed by the agent",
];
const pages: Array<Uint8Array> = [];
const slowMs = 240_000;

beforeAll(async () => {
  service = await startService();
  for (const truth of truths) pages.push(await scannedPage(truth));
});
afterAll(async () => service?.stop());

const b64 = (bytes: Uint8Array) => Buffer.from(bytes).toString("base64");
const asPdf = (key: string, image: Uint8Array) =>
  service.client.request("POST", "/api/ocr", { key, body: { image: b64(image), language: "eng", outputFormat: "pdf" } });
const used = async (key: string): Promise<number> => (await service.client.request("GET", "/api/user/profile", { key })).json.data.quota.used;
const cer = (text: string, truth: string) => cerPercent([cerCount(text, truth)]);

/** The PDF behind data.resultUrl, fetched without a key as a client would. */
const fetchPdf = async (data: { resultUrl: string }) => {
  const reply = await service.client.get(data.resultUrl);
  expect(reply.status).toBe(200);
  expect(reply.headers["content-type"]).toBe("application/pdf");
  return new Uint8Array(reply.body);
};

describe("POST /api/ocr with outputFormat pdf", () => {
  it(
    "answers a scanned image with its text and a signed URL to a searchable one-page PDF whose text layer reads as data.text",
    async () => {
      const key = (await provisionAccount(service.env, "pro")).keys[0]!.key;
      const reply = await asPdf(key, pages[0]!);
      expect(reply.status, JSON.stringify(reply.json)).toBe(200);
      const data = reply.json.data;
      expect(data).toMatchObject({ language: "eng", outputFormat: "pdf", resultUrl: expect.stringMatching(/^https:\/\//), expiresAt: expect.any(String) });
      expect(data.pdf).toBeUndefined();
      expect(cer(data.text, truths[0]!), data.text).toBeLessThan(3);

      const back = await readPdfBack(await fetchPdf(data), 72);
      expect(back.warnings).toBe("");
      expect(back.pages).toBe(1);
      expect(cer(back.text, data.text), back.text).toBeLessThanOrEqual(2);
      // The scan is drawn under the invisible text: dark ink on a light page, at the size a 300 dpi scan prints.
      const { width } = await sharp(pages[0]!).metadata();
      expect(back.pageSizes[0]!.width).toBeCloseTo((width! * 72) / 300, 0);
      const drawn = await sharp(back.renderings[0]!).stats();
      expect(drawn.channels[0]!.min).toBeLessThan(100);
      expect(drawn.channels[0]!.mean).toBeGreaterThan(200);
      expect(await used(key)).toBe(1);
    },
    slowMs,
  );

  it(
    "gives a three-page TIFF back as one three-page PDF, pages in order, three transformations",
    async () => {
      const key = (await provisionAccount(service.env, "pro")).keys[0]!.key;
      const reply = await asPdf(key, await tiffOf(pages));
      expect(reply.status, JSON.stringify(reply.json)).toBe(200);
      const data = reply.json.data;
      expect(data.pages).toHaveLength(3);
      for (const [index, page] of (data.pages as Array<{ text: string; outputFormat: string; pdf?: unknown }>).entries()) {
        expect(page.outputFormat).toBe("pdf");
        expect(page.pdf).toBeUndefined();
        expect(cer(page.text, truths[index]!), page.text).toBeLessThan(3);
      }

      const back = await readPdfBack(await fetchPdf(data));
      expect(back.warnings).toBe("");
      expect(back.pages).toBe(3);
      expect(back.renderings).toHaveLength(3);
      expect(cer(back.text, data.text), back.text).toBeLessThanOrEqual(2);
      expect(back.text.indexOf("Lease")).toBeLessThan(back.text.indexOf("repairs"));
      expect(back.text.indexOf("repairs")).toBeLessThan(back.text.indexOf("Witnessed"));
      expect(await used(key)).toBe(3);
    },
    slowMs,
  );
});

describe("outputFormat pdf with the PaddleOCR engine", () => {
  let paddle: ServiceProcess;
  beforeAll(async () => {
    paddle = await startService({ env: { OCR_ENGINE: "paddle" } });
  }, slowMs);
  afterAll(async () => paddle?.stop());

  it("is written from that engine's reading by the same writer: one page whose text layer reads as data.text, charged once", async () => {
    const key = (await provisionAccount(paddle.env, "pro")).keys[0]!.key;
    const reply = await paddle.client.request("POST", "/api/ocr", { key, body: { image: b64(pages[0]!), language: "eng", outputFormat: "pdf" } });
    expect(reply.status, JSON.stringify(reply.json)).toBe(200);
    const data = reply.json.data;
    // Its own reading (the Chinese model loses some spaces between Latin words); the PDF must hold exactly that.
    expect(data.text).toContain("1,680.00");
    const pdf = await paddle.client.get(data.resultUrl);
    expect(pdf.headers["content-type"]).toBe("application/pdf");
    const back = await readPdfBack(new Uint8Array(pdf.body));
    expect(back.warnings).toBe("");
    expect(back.pages).toBe(1);
    expect(cer(back.text, data.text), back.text).toBeLessThanOrEqual(2);
    expect((await paddle.client.request("GET", "/api/user/profile", { key })).json.data.quota.used).toBe(1);
  });
});
