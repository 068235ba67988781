import sharp from "sharp";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { cerCount, cerPercent } from "../support/character-error-rate.ts";
import { bmpOf, pbmOf, pdfOf, scannedPage, tiffOf } from "../support/document-fixtures.ts";
import { watchHealthz } from "../support/healthz-watch.ts";
import { photoPng } from "../support/image-fixtures.ts";
import { provisionAccount, type ServiceProcess, startService } from "../support/service-process.ts";

/**
 * Documents (PDF, multi-page TIFF) and the other image formats (BMP, PBM) through POST /api/ocr,
 * over real HTTPS against the service process, with the quota read back from the profile.
 */
let service: ServiceProcess;
const truths = [
  "Statement of account\nAccount number 4471 0923\nOpening balance 1,250.00\nClosing balance 980.75",
  "Transfers in November\nRent paid on 3 November 640.00\nGroceries 129.25 and water 35.10",
  "Third page of notes\nThe meeting moved to Friday\nBring the signed contract",
];
const pages: Array<Uint8Array> = [];
const slowMs = 240_000;

beforeAll(async () => {
  service = await startService();
  for (const truth of truths) pages.push(await scannedPage(truth));
});
afterAll(async () => service?.stop());

const b64 = (bytes: Uint8Array) => Buffer.from(bytes).toString("base64");
const ocr = (key: string, image: Uint8Array, language = "eng") => service.client.request("POST", "/api/ocr", { key, body: { image: b64(image), language } });
const used = async (key: string): Promise<number> => (await service.client.request("GET", "/api/user/profile", { key })).json.data.quota.used;
const cer = (text: string, truth: string) => cerPercent([cerCount(text, truth)]);

describe("POST /api/ocr with documents", () => {
  // First in the file: the document thread is not running yet, so the first refusal includes starting it and loading PDFium.
  it("refuses broken, encrypted and scripted PDFs with 422 INVALID_IMAGE within a second, at no cost, the first one included", async () => {
    const key = (await provisionAccount(service.env, "pro")).keys[0]!.key;
    const good = await pdfOf(pages.slice(0, 1));
    const cases: Array<[string, Uint8Array, RegExp]> = [
      ["broken (cut in half)", good.subarray(0, Math.floor(good.length / 2)), /damaged|cannot/],
      ["not a PDF after its header", new TextEncoder().encode("%PDF-1.7\nthis is not a PDF at all\n%%EOF\n"), /damaged|cannot/],
      ["encrypted with a user password", await pdfOf(pages.slice(0, 1), { userPassword: "secret" }), /encrypted/],
      ["encrypted, opening without a password", await pdfOf(pages.slice(0, 1), { userPassword: "" }), /encrypted/],
      ["JavaScript as its open action", await pdfOf(pages.slice(0, 1), { javascript: "open-action" }), /JavaScript/],
      ["JavaScript in a name tree with escaped names", await pdfOf(pages.slice(0, 1), { javascript: "escaped-name-tree" }), /JavaScript/],
    ];
    const timings: Array<string> = [];
    for (const [what, bytes, message] of cases) {
      const started = performance.now();
      const reply = await ocr(key, bytes);
      const ms = performance.now() - started;
      timings.push(`${what}: ${Math.round(ms)} ms`);
      expect(reply.status, what).toBe(422);
      expect(reply.json.error.code, what).toBe("INVALID_IMAGE");
      expect(reply.json.error.message, what).toMatch(message);
      expect(ms, what).toBeLessThan(1000);
    }
    console.log(`422 for bad PDFs, whole request: ${timings.join("; ")}`);
    expect(await used(key)).toBe(0);
  });

  it(
    "reads a two-page scanned PDF page by page, and counts two transformations",
    async () => {
      const key = (await provisionAccount(service.env, "pro")).keys[0]!.key;
      const before = await used(key);
      const reply = await ocr(key, await pdfOf(pages.slice(0, 2)));
      expect(reply.status, JSON.stringify(reply.json)).toBe(200);
      const data = reply.json.data;
      expect(data.pages.map((page: { page: number }) => page.page)).toEqual([1, 2]);
      for (const [index, page] of (data.pages as Array<{ text: string; language: string; confidence: number }>).entries()) {
        expect(page.language).toBe("eng");
        expect(page.confidence).toBeGreaterThan(70);
        expect(cer(page.text, truths[index]!), page.text).toBeLessThan(3);
      }
      expect(data).toMatchObject({ language: "eng", outputFormat: "text", text: `${data.pages[0].text}\n\n${data.pages[1].text}` });
      expect(await used(key)).toBe(before + 2);
    },
    slowMs,
  );

  it(
    "reads a multi-page TIFF the same way, each page with the format's own field",
    async () => {
      const key = (await provisionAccount(service.env, "pro")).keys[0]!.key;
      const reply = await service.client.request("POST", "/api/ocr", {
        key,
        body: { image: b64(await tiffOf(pages.slice(1, 3))), language: "eng", outputFormat: "tsv" },
      });
      expect(reply.status, JSON.stringify(reply.json)).toBe(200);
      expect(reply.json.data.pages).toHaveLength(2);
      for (const [index, page] of (reply.json.data.pages as Array<{ text: string; tsv: string }>).entries()) {
        expect(cer(page.text, truths[index + 1]!), page.text).toBeLessThan(3);
        expect(page.tsv).toMatch(/^level\tpage_num/);
      }
      expect(await used(key)).toBe(2);
    },
    slowMs,
  );

  it(
    "reserves every page before work starts: a three-page PDF with two units left gets 429 and uses nothing",
    async () => {
      const { keys } = await provisionAccount(service.env, "free", 5);
      const image = (await photoPng(96, 64)).toString("base64");
      // 48 of the free plan's 50, spread over four keys within their burst; the fifth asks.
      const drained = await Promise.all(
        Array.from({ length: 48 }, (_, i) =>
          service.client.request("POST", "/api/generate", {
            key: keys[1 + (i % 4)]!.key,
            body: { image, template: "instagram-square", templateType: "social" },
          }),
        ),
      );
      expect(drained.map((r) => r.status).filter((s) => s !== 200)).toEqual([]);
      const key = keys[0]!.key;
      expect(await used(key)).toBe(48);

      const refused = await ocr(key, await pdfOf(pages));
      expect(refused.status).toBe(429);
      expect(refused.json.error.code).toBe("QUOTA_EXCEEDED");
      expect(Number(refused.headers["retry-after"])).toBeGreaterThan(0);
      expect(await used(key)).toBe(48);

      // Exactly the two units left: taken, and the month is full.
      const fits = await ocr(key, await pdfOf(pages.slice(0, 2)));
      expect(fits.status, JSON.stringify(fits.json)).toBe(200);
      expect(await used(key)).toBe(50);
    },
    slowMs,
  );

  it("refuses a document over MAX_DOCUMENT_PAGES (20) with 413, at no cost", async () => {
    const key = (await provisionAccount(service.env, "pro")).keys[0]!.key;
    const reply = await ocr(key, await pdfOf(21));
    expect(reply.status).toBe(413);
    expect(reply.json).toMatchObject({ success: false, error: { code: "PAYLOAD_TOO_LARGE", message: expect.stringContaining("21 pages") } });
    const tiff = await ocr(key, await tiffOf(Array.from({ length: 21 }, () => pages[0]!)));
    expect(tiff.status).toBe(413);
    expect(await used(key)).toBe(0);
  });
});

describe("POST /api/ocr with BMP and PBM images", () => {
  it(
    "reads a 24-bit BMP and a binary PBM as single images",
    async () => {
      const key = (await provisionAccount(service.env, "pro")).keys[0]!.key;
      for (const [format, bytes] of [
        ["bmp", await bmpOf(pages[0]!)],
        ["pbm", await pbmOf(pages[1]!)],
      ] as const) {
        const reply = await ocr(key, bytes);
        expect(reply.status, `${format} ${JSON.stringify(reply.json)}`).toBe(200);
        expect(reply.json.data.pages, format).toBeUndefined();
        expect(cer(reply.json.data.text, truths[format === "bmp" ? 0 : 1]!), `${format}: ${reply.json.data.text}`).toBeLessThan(3);
      }
      expect(await used(key)).toBe(2);
    },
    slowMs,
  );

  it("refuses a PBM whose header passes the pixel limit, and a truncated BMP, with 422 before any pixel is read", async () => {
    const key = (await provisionAccount(service.env, "pro")).keys[0]!.key;
    const huge = await ocr(key, new TextEncoder().encode("P4\n99999 99999\n\0\0\0"));
    expect(huge.status).toBe(422);
    expect(huge.json.error.message).toMatch(/megapixels/);
    const bmp = await bmpOf(pages[0]!);
    const truncated = await ocr(key, bmp.subarray(0, 2000));
    expect(truncated.status).toBe(422);
    expect(truncated.json.error.message).toMatch(/truncated/);
    expect(await used(key)).toBe(0);
  });
});

describe("hostile PDFs", () => {
  /** As large as MAX_IMAGE_BYTES (10 MiB) allows: `%PDF-1.7` and then `unit` over and over. */
  const filled = (unit: string) => {
    const bytes = Buffer.alloc(10 * 2 ** 20, unit, "latin1");
    bytes.write("%PDF-1.7\n", 0, "latin1");
    return new Uint8Array(bytes);
  };

  it(
    "refuses, within two seconds each and with /healthz answering, malformed PDFs at the size limit (one keeps PDFium busy for minutes) and a PDF of 1000 pages",
    async () => {
      const key = (await provisionAccount(service.env, "pro")).keys[0]!.key;
      const cases: Array<[string, Uint8Array, number, RegExp]> = [
        // Every stream claims more bytes than the file has: PDFium scans to the end for each one (minutes).
        ["10 MiB of unterminated streams", filled("1 0 obj<</Length 99999999>>stream\n"), 422, /damaged/],
        ["10 MiB of nested arrays", filled("["), 422, /damaged/],
        ["10 MiB of objects without a cross-reference table", filled("1 0 obj << /Type /Page >> endobj\n"), 422, /damaged/],
        ["a well-formed PDF of 1000 pages", await pdfOf(1000), 413, /1000 pages/],
      ];
      const timings: Array<string> = [];
      for (const [what, bytes, status, message] of cases) {
        const watch = watchHealthz(service.client);
        const started = performance.now();
        const reply = await ocr(key, bytes);
        const ms = performance.now() - started;
        const health = await watch.stop();
        timings.push(`${what}: ${Math.round(ms)} ms (/healthz longest ${Math.round(health.longestMs)} ms)`);
        expect(reply.status, what).toBe(status);
        expect(reply.json.error.message, what).toMatch(message);
        // The whole request, a 13 MiB JSON body over TLS included: under a second on the machines CI
        // has used, 1.2–1.5 s on a slower one of the same kind (before and after this session's changes alike).
        expect(ms, what).toBeLessThan(2000);
        // Known: the 10 MiB cases stall the event loop 380-440 ms on that slower machine (63-96 ms on
        // others). The PDF's pre-scan runs in the document thread; what remains on the loop is the 13 MiB
        // body's TLS, JSON and base64, and the PDF's copy to the thread (docs/ocr.md, Documents): the
        // bound only rules out seconds.
        expect(health.longestMs, what).toBeLessThan(600);
      }
      console.log(`hostile PDFs, whole request: ${timings.join("; ")}`);
      // The thread stopped for the first one is started afresh for the next document.
      const good = await ocr(key, await pdfOf(pages.slice(0, 1)));
      expect(good.status, JSON.stringify(good.json)).toBe(200);
      expect(await used(key)).toBe(1);
    },
    slowMs,
  );
});

describe("large inputs", () => {
  it(
    "unpacks a 24-megapixel PBM and draws a poster-sized PDF page off the event loop: /healthz keeps answering",
    async () => {
      const key = (await provisionAccount(service.env, "pro")).keys[0]!.key;
      const poster = await sharp({ create: { width: 6000, height: 4000, channels: 3, background: "#ffffff" } })
        .composite([{ input: Buffer.from(pages[0]!), top: 200, left: 200 }])
        .png()
        .toBuffer();
      const pbm = await pbmOf(poster);
      // The page's image shown at 10 dpi: a page 11,520 points wide, drawn within the 16-megapixel page bound.
      const pdf = await pdfOf([pages[0]!], {}, 10);
      for (const [what, bytes] of [
        ["PBM", pbm],
        ["PDF", pdf],
      ] as const) {
        const watch = watchHealthz(service.client);
        const reply = await ocr(key, bytes);
        const health = await watch.stop();
        expect(reply.status, `${what}: ${JSON.stringify(reply.json)}`).toBe(200);
        expect(reply.json.data.text, what).toContain("Statement of account");
        console.log(
          `${what} (${bytes.length} bytes): ${reply.json.data.processingTime} ms, /healthz longest ${Math.round(health.longestMs)} ms over ${health.answers} answers`,
        );
        expect(health.longestMs, what).toBeLessThan(250);
      }
    },
    slowMs,
  );
});

describe("the other routes", () => {
  it("keep refusing documents, BMP and PBM with 422 INVALID_IMAGE", async () => {
    const key = (await provisionAccount(service.env, "pro")).keys[0]!.key;
    const person = (await photoPng(96, 128)).toString("base64");
    for (const bytes of [await pdfOf(pages.slice(0, 1)), await bmpOf(pages[0]!), await pbmOf(pages[0]!)]) {
      const generated = await service.client.request("POST", "/api/generate", {
        key,
        body: { image: b64(bytes), template: "instagram-square", templateType: "social" },
      });
      expect(generated.status).toBe(422);
      expect(generated.json.error.code).toBe("INVALID_IMAGE");
      const tried = await service.client.request("POST", "/api/virtual-tryon", { key, body: { personImage: person, clothingImage: b64(bytes) } });
      expect(tried.status).toBe(422);
      expect(tried.json.error.code).toBe("INVALID_IMAGE");
    }
  });
});
