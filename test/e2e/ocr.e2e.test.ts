import sharp from "sharp";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { cerCount, cerPercent } from "../support/character-error-rate.ts";
import { renderSample, type CorpusSample } from "../support/ocr-corpus.ts";
import { corpusLanguages, type CorpusLanguage } from "../support/ocr-corpus-texts.ts";
import { fontsFor } from "../support/ocr-corpus.ts";
import { provisionAccount, startService, type ServiceProcess } from "../support/service-process.ts";

/** POST /api/ocr through real HTTPS against the service process, on rendered pages with known text. */
let service: ServiceProcess;
const pages = new Map<CorpusLanguage, CorpusSample>();

beforeAll(async () => {
  service = await startService();
  for (const language of corpusLanguages) {
    pages.set(language, await renderSample({ language, layout: "paragraph", variant: "clean", font: fontsFor[language][0] ?? "", fontSize: 22, textIndex: 0 }));
  }
});
afterAll(async () => service?.stop());

const ocr = (key: string, body: unknown) => service.client.request("POST", "/api/ocr", { key, body });
const keysFor = async (count: number) => (await provisionAccount(service.env, "enterprise", count)).keys.map((k) => k.key);
const b64 = (sample: CorpusSample) => Buffer.from(sample.png).toString("base64");

describe("POST /api/ocr", () => {
  it("answers every output format with text, language, confidence, outputFormat, processingTime and the format's field", async () => {
    const [key] = await keysFor(1);
    const page = pages.get("eng")!;
    for (const outputFormat of ["text", "json", "hocr", "tsv"]) {
      const reply = await ocr(key!, { image: b64(page), language: "eng", outputFormat });
      expect(reply.status, outputFormat).toBe(200);
      const data = reply.json.data;
      expect(data).toMatchObject({ language: "eng", outputFormat, text: expect.any(String), confidence: expect.any(Number), processingTime: expect.any(Number) });
      expect(cerPercent([cerCount(data.text, page.groundTruth)])).toBeLessThan(5);
      if (outputFormat === "json") expect(data.blocks[0].lines[0].words[0]).toMatchObject({ text: expect.any(String), confidence: expect.any(Number), bbox: { x0: expect.any(Number), y0: expect.any(Number), x1: expect.any(Number), y1: expect.any(Number) } });
      if (outputFormat === "hocr") expect(data.hocr).toContain("ocr_line");
      if (outputFormat === "tsv") expect(data.tsv.split("\n").slice(0, 2)).toEqual([expect.stringMatching(/^level\tpage_num/), expect.stringMatching(/^\d+\t/)]);
    }
  });

  it("reads each listed language, and auto names the right one on clean Latin-script pages", async () => {
    const keys = await keysFor(3);
    const results: Array<{ language: string; auto?: string; cer: number }> = [];
    let i = 0;
    for (const [language, page] of pages) {
      const reply = await ocr(keys[Math.floor(i++ / 7)]!, { image: b64(page), language });
      expect(reply.status, language).toBe(200);
      results.push({ language, cer: cerPercent([cerCount(reply.json.data.text, page.groundTruth)]) });
    }
    for (const language of ["eng", "deu", "fra", "spa", "ita", "por", "nld"] as const) {
      const reply = await ocr(keys[Math.floor(i++ / 7) % 3]!, { image: b64(pages.get(language)!) });
      expect(reply.status).toBe(200);
      expect(reply.json.data.language, `auto on ${language}`).toBe(language);
    }
    console.log("[ocr e2e] CER % per language:", Object.fromEntries(results.map((r) => [r.language, Number(r.cer.toFixed(1))])));
    for (const r of results) expect(r.cer, r.language).toBeLessThan(15);
  });

  it("answers an image with no text with text \"\" and 200", async () => {
    const [key] = await keysFor(1);
    const blank = await sharp({ create: { width: 400, height: 300, channels: 3, background: "#ffffff" } }).png().toBuffer();
    const reply = await ocr(key!, { image: blank.toString("base64") });
    expect(reply.status).toBe(200);
    expect(reply.json.data.text).toBe("");
  });

  it("lists its languages, and names the allowed values of an unknown language or format (400, no quota)", async () => {
    const { keys } = await provisionAccount(service.env, "free");
    const key = keys[0]!.key;
    const languages = await service.client.request("GET", "/api/ocr/languages", { key });
    expect(languages.json.data.languages.map((l: { code: string }) => l.code)).toEqual(["auto", "eng", "deu", "fra", "spa", "ita", "por", "nld", "chi_sim", "jpn", "ara"]);
    const badLanguage = await ocr(key, { image: b64(pages.get("eng")!), language: "klingon" });
    expect(badLanguage.status).toBe(400);
    expect(badLanguage.json.error.details[0]).toMatchObject({ path: "language" });
    expect(badLanguage.json.error.message).toContain("chi_sim");
    const badFormat = await ocr(key, { image: b64(pages.get("eng")!), outputFormat: "pdf" });
    expect(badFormat.status).toBe(400);
    expect(badFormat.json.error.message).toContain("text, json, hocr, tsv");
    const profile = await service.client.request("GET", "/api/user/profile", { key });
    expect(profile.json.data.quota.used).toBe(0);
  });
});
