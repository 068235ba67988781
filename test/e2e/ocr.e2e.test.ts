import sharp from "sharp";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { cerCount, cerPercent } from "../support/character-error-rate.ts";
import { type CorpusSample, fontsFor, missingFontFamilies, renderSample } from "../support/ocr-corpus.ts";
import { type CorpusLanguage, corpusLanguages } from "../support/ocr-corpus-texts.ts";
import { renderWorldPage, type WorldLanguage, worldTexts } from "../support/ocr-world-corpus.ts";
import { provisionAccount, rssMiB, type ServiceProcess, startService } from "../support/service-process.ts";

/** POST /api/ocr through real HTTPS against the service process, on rendered pages with known text. */
let service: ServiceProcess;
const pages = new Map<CorpusLanguage, CorpusSample>();
/** Languages load on first use here, several per test: room for that on a shared machine. */
const slowOcrTimeoutMs = 240_000;
/** Resident memory of the service once started, before any OCR request (MiB). */
let idleRssMiB = 0;

beforeAll(async () => {
  service = await startService();
  await new Promise((resolve) => setTimeout(resolve, 1000));
  idleRssMiB = rssMiB(service.pid);
  for (const language of corpusLanguages) {
    pages.set(language, await renderSample({ language, layout: "paragraph", variant: "clean", font: fontsFor[language][0] ?? "", fontSize: 22, textIndex: 0 }));
  }
});
afterAll(async () => service?.stop());

const ocr = (key: string, body: unknown) => service.client.request("POST", "/api/ocr", { key, body });
const keysFor = async (count: number) => (await provisionAccount(service.env, "enterprise", count)).keys.map((k) => k.key);
const b64 = (sample: CorpusSample) => Buffer.from(sample.png).toString("base64");

describe("POST /api/ocr", () => {
  it(
    "answers every output format with text, language, confidence, outputFormat, processingTime and the format's field",
    async () => {
      const [key] = await keysFor(1);
      const page = pages.get("eng")!;
      for (const outputFormat of ["text", "json", "hocr", "tsv"]) {
        const reply = await ocr(key!, { image: b64(page), language: "eng", outputFormat });
        expect(reply.status, outputFormat).toBe(200);
        const data = reply.json.data;
        expect(data).toMatchObject({
          language: "eng",
          outputFormat,
          text: expect.any(String),
          confidence: expect.any(Number),
          processingTime: expect.any(Number),
        });
        expect(cerPercent([cerCount(data.text, page.groundTruth)])).toBeLessThan(5);
        if (outputFormat === "json")
          expect(data.blocks[0].lines[0].words[0]).toMatchObject({
            text: expect.any(String),
            confidence: expect.any(Number),
            bbox: { x0: expect.any(Number), y0: expect.any(Number), x1: expect.any(Number), y1: expect.any(Number) },
          });
        if (outputFormat === "hocr") expect(data.hocr).toContain("ocr_line");
        if (outputFormat === "tsv")
          expect(data.tsv.split("\n").slice(0, 2)).toEqual([expect.stringMatching(/^level\tpage_num/), expect.stringMatching(/^\d+\t/)]);
      }
    },
    slowOcrTimeoutMs,
  );

  // A sample of the languages (each loads on its first request here): Latin, Han and Japanese;
  // bench/ocr-languages.ts reads 34.
  it(
    "reads languages of several scripts, and auto names the right one on clean Latin-script pages",
    async () => {
      const keys = await keysFor(2);
      const results: Array<{ language: string; auto?: string; cer: number }> = [];
      let i = 0;
      for (const language of ["eng", "deu", "fra", "chi_sim", "jpn"] as const) {
        const page = pages.get(language)!;
        const reply = await ocr(keys[Math.floor(i++ / 7)]!, { image: b64(page), language });
        expect(reply.status, language).toBe(200);
        results.push({ language, cer: cerPercent([cerCount(reply.json.data.text, page.groundTruth)]) });
      }
      for (const language of ["deu", "fra", "spa"] as const) {
        const reply = await ocr(keys[Math.floor(i++ / 7) % 2]!, { image: b64(pages.get(language)!) });
        expect(reply.status).toBe(200);
        expect(reply.json.data.language, `auto on ${language}`).toBe(language);
      }
      console.log("[ocr e2e] CER % per language:", Object.fromEntries(results.map((r) => [r.language, Number(r.cer.toFixed(1))])));
      for (const r of results) expect(r.cer, r.language).toBeLessThan(15);
    },
    slowOcrTimeoutMs,
  );

  it('answers an image with no text with text "" and 200', async () => {
    const [key] = await keysFor(1);
    const blank = await sharp({ create: { width: 400, height: 300, channels: 3, background: "#ffffff" } })
      .png()
      .toBuffer();
    const reply = await ocr(key!, { image: blank.toString("base64") });
    expect(reply.status).toBe(200);
    expect(reply.json.data.text).toBe("");
  });

  it("lists at least 60 languages with name and script, and names the allowed forms of an unknown language or format (400, no quota)", async () => {
    const { keys } = await provisionAccount(service.env, "free");
    const key = keys[0]!.key;
    const languages = await service.client.request("GET", "/api/ocr/languages", { key });
    const listed = languages.json.data.languages as Array<{ code: string; name: string; script: string }>;
    expect(listed.length).toBeGreaterThanOrEqual(61);
    expect(listed[0]).toEqual({ code: "auto", name: "Automatic detection", script: "any" });
    for (const language of listed) expect(language).toEqual({ code: expect.stringMatching(/^[a-z_]+$/), name: expect.any(String), script: expect.any(String) });
    expect(listed).toContainEqual({ code: "chi_tra", name: "Chinese (Traditional)", script: "Han" });
    expect(listed).toContainEqual({ code: "kor", name: "Korean", script: "Hangul" });
    expect(listed).toContainEqual({ code: "hin", name: "Hindi", script: "Devanagari" });
    for (const bad of ["klingon", "eng+eng", "eng+deu+fra+ita", "eng+"]) {
      const badLanguage = await ocr(key, { image: b64(pages.get("eng")!), language: bad });
      expect(badLanguage.status, bad).toBe(400);
      expect(badLanguage.json.error.details[0]).toMatchObject({ path: "language" });
      expect(badLanguage.json.error.message).toContain("eng+deu");
    }
    const badFormat = await ocr(key, { image: b64(pages.get("eng")!), outputFormat: "docx" });
    expect(badFormat.status).toBe(400);
    expect(badFormat.json.error.message).toContain("text, json, hocr, tsv, pdf");
    const profile = await service.client.request("GET", "/api/user/profile", { key });
    expect(profile.json.data.quota.used).toBe(0);
  });

  it("holds at most 400 MiB when idle after start: languages load on first use", () => {
    console.log(`[ocr e2e] idle RSS after start: ${idleRssMiB.toFixed(0)} MiB`);
    expect(idleRssMiB).toBeGreaterThan(0);
    expect(idleRssMiB).toBeLessThanOrEqual(400);
  });

  it(
    "reads a language on its first request (loading it once), then warm; and several languages together",
    async () => {
      const [key] = await keysFor(1);
      const page = Buffer.from(await renderWorldPage("ukr")).toString("base64");
      const times: number[] = [];
      for (let i = 0; i < 2; i++) {
        const started = performance.now();
        const reply = await ocr(key!, { image: page, language: "ukr" });
        times.push(performance.now() - started);
        expect(reply.status).toBe(200);
        expect(reply.json.data.language).toBe("ukr");
        expect(cerPercent([cerCount(reply.json.data.text, worldTexts.ukr)])).toBeLessThan(5);
      }
      console.log(`[ocr e2e] ukr cold ${times[0]!.toFixed(0)} ms, warm ${times[1]!.toFixed(0)} ms`);

      const german = pages.get("deu")!;
      const combined = await ocr(key!, { image: b64(german), language: "eng+deu" });
      expect(combined.status).toBe(200);
      expect(combined.json.data.language).toBe("eng+deu");
      expect(cerPercent([cerCount(combined.json.data.text, german.groundTruth)])).toBeLessThan(5);
    },
    slowOcrTimeoutMs,
  );

  it(
    'with "auto", settles the script, then picks the language of that script that reads best',
    async () => {
      const [key] = await keysFor(1);
      const cases: ReadonlyArray<WorldLanguage> = ["ukr", ...(missingFontFamilies(["chi_sim"]).length === 0 ? (["chi_tra"] as const) : [])];
      for (const language of cases) {
        const reply = await ocr(key!, { image: Buffer.from(await renderWorldPage(language)).toString("base64") });
        expect(reply.status, language).toBe(200);
        expect(reply.json.data.language, language).toBe(language);
        expect(cerPercent([cerCount(reply.json.data.text, worldTexts[language])]), language).toBeLessThan(10);
      }
    },
    slowOcrTimeoutMs,
  );
});
