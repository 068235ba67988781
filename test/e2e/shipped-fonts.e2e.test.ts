import fs from "node:fs";
import https from "node:https";
import path from "node:path";
import { Effect, ManagedRuntime } from "effect";
import sharp from "sharp";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { TesseractOcrEngine } from "../../src/adapters/ocr/tesseract/tesseract-ocr-engine.ts";
import { TEMPLATE_FONTS } from "../../src/domain/account-templates/account-template-design.ts";
import { OcrEngine, type OcrLanguage } from "../../src/ports/engines/ocr-engine.ts";
import { queuedOcrEngineLayer } from "../../src/queued-ocr-engine.ts";
import { cerCount, cerPercent } from "../support/character-error-rate.ts";
import { provisionAccount, type ServiceProcess, startService } from "../support/service-process.ts";

/**
 * Issue 45: the fonts GET /templates/fonts lists are the npm packages' files, seen by the service
 * through its own fontconfig file (the system's fonts are never looked at: the test's own
 * FONTCONFIG_FILE, pointing at the system's configuration, is replaced). Every family draws each
 * script it claims, over real HTTPS, read back by the project's OCR.
 */
const ROOT = path.resolve(import.meta.dirname, "../..");

/** A title per script, its OCR language, and the character error rate it must be read at (measured, then some room). */
const TITLES: Readonly<Record<string, { readonly text: string; readonly ocr: OcrLanguage; readonly maxCer: number }>> = {
  Latin: { text: "Welcome to the service", ocr: "eng", maxCer: 10 },
  Arabic: { text: "مرحبا بكم في الخدمة", ocr: "ara", maxCer: 10 },
  Hebrew: { text: "ברוכים הבאים לשירות", ocr: "heb", maxCer: 10 },
  "Simplified Chinese": { text: "图像转换服务欢迎您", ocr: "chi_sim", maxCer: 10 },
  "Traditional Chinese": { text: "圖像轉換服務歡迎您", ocr: "chi_tra", maxCer: 10 },
  Japanese: { text: "画像変換サービスへようこそ", ocr: "jpn", maxCer: 10 },
  Korean: { text: "이미지 변환 서비스", ocr: "kor", maxCer: 10 },
};

const ROW = 90;
const WIDTH = 900;

let service: ServiceProcess;
let key: string;
let fonts: ReadonlyArray<{ family: string; scripts: ReadonlyArray<string> }>;

beforeAll(async () => {
  service = await startService({ env: { FONTCONFIG_FILE: "/etc/fonts/fonts.conf" } });
  key = (await provisionAccount(service.env, "pro")).keys[0]!.key;
  fonts = (await service.client.request("GET", "/api/templates/fonts", { key })).json.data.fonts;
});
afterAll(async () => service?.stop());

/** Each family with each script of TITLES it claims: one text layer each, the rows of one script together (read by OCR at once). */
const pairs = () => Object.keys(TITLES).flatMap((script) => fonts.filter(({ scripts }) => scripts.includes(script)).map(({ family }) => ({ family, script })));

/** A GET with its path sent as written: URL parsing would resolve the dot segments before they left. */
const rawGet = (requestPath: string) =>
  new Promise<{ status: number; json: { success: boolean } }>((resolve, reject) => {
    const ca = fs.readFileSync(path.join(service.dataDir, "tls", "self-signed-cert.pem"));
    const request = https.request({ host: "127.0.0.1", port: service.httpsPort, path: requestPath, ca, headers: { Authorization: `Bearer ${key}` } }, (res) => {
      const chunks: Array<Buffer> = [];
      res.on("data", (chunk: Buffer) => chunks.push(chunk));
      res.on("end", () => resolve({ status: res.statusCode ?? 0, json: JSON.parse(Buffer.concat(chunks).toString("utf8")) }));
    });
    request.on("error", reject).end();
  });

describe("the shipped fonts", () => {
  it("are the only fonts the service's fontconfig sees, and every family passed the start check", () => {
    const conf = fs.readFileSync(path.join(service.dataDir, "fontconfig", "fonts.conf"), "utf8");
    const folders = [...conf.matchAll(/<dir>([^<]+)<\/dir>/g)].map((match) => match[1]!);
    expect(folders.length).toBeGreaterThan(0);
    for (const folder of folders) expect(folder.startsWith(path.join(ROOT, "node_modules"))).toBe(true);
    expect(conf).not.toMatch(/<include|\/usr\/share\/fonts|\/etc\/fonts/);
    expect(service.logs()).toMatch(/fonts: 9 of 9 families draw every script they claim/);
    expect(fonts.map(({ family }) => family)).toEqual(TEMPLATE_FONTS);
    expect(new Set(pairs().map(({ script }) => script))).toEqual(new Set(Object.keys(TITLES)));
  });

  it("draw a title in every script through every family that claims it, read back by OCR", { timeout: 120_000 }, async () => {
    const layers = pairs().map(({ family, script }, index) => ({
      type: "text",
      name: `row${index}`,
      box: { x: 20, y: index * ROW + 10, width: WIDTH - 40, height: ROW - 20 },
      font: family,
      weight: 700,
      color: "#000000",
      maxSize: 48,
      minSize: 20,
      align: script === "Arabic" || script === "Hebrew" ? "right" : "left",
      text: TITLES[script]!.text,
    }));
    const design = { name: "scripts", canvas: { width: WIDTH, height: layers.length * ROW, background: "#ffffff", format: "png" }, layers };
    expect((await service.client.request("POST", "/api/templates", { key, body: design })).status).toBe(201);
    const reply = await service.client.request("POST", "/api/generate", { key, body: { templateType: "custom", template: "scripts" } });
    expect(reply.status).toBe(200);
    const picture = (await service.client.get(reply.json.data.resultUrl)).body;

    const runtime = ManagedRuntime.make(queuedOcrEngineLayer({ deadlineMs: 60_000 })(TesseractOcrEngine.layer({ workers: 1 })));
    try {
      const read: Array<string> = [];
      for (const [script, { text, ocr, maxCer }] of Object.entries(TITLES)) {
        const first = pairs().findIndex((pair) => pair.script === script);
        const families = pairs()
          .filter((pair) => pair.script === script)
          .map(({ family }) => family);
        const height = families.length * ROW;
        const rows = await sharp(picture)
          .extract({ left: 0, top: first * ROW, width: WIDTH, height })
          .png()
          .toBuffer();
        const result = await runtime.runPromise(
          Effect.flatMap(OcrEngine, (engine) =>
            engine.recognize({ image: { bytes: rows, format: "png", width: WIDTH, height }, language: [ocr], outputFormat: "text" }),
          ),
        );
        // One line per row, in the rows' order (they are 90 px apart: never merged).
        const lines = result.text.split("\n").filter((line) => line.trim() !== "");
        expect(lines, script).toHaveLength(families.length);
        families.forEach((family, index) => {
          const cer = cerPercent([cerCount(lines[index]!, text)]);
          read.push(`${family} / ${script}: ${JSON.stringify(lines[index]!.trim())} CER ${cer.toFixed(1)} %`);
          expect({ family, script, cer: cer <= maxCer }).toEqual({ family, script, cer: true });
        });
      }
      console.log(`[shipped fonts] ${read.join("\n")}`);
    } finally {
      await runtime.dispose();
    }
  });

  it("refuses a dot segment or a trailing slash under /templates as the document says /templates/{id} answers: 404, never the list", async () => {
    for (const requestPath of ["/api/templates/.", "/api/templates/..", "/api/templates/%2e", "/api/templates/"]) {
      const reply = await rawGet(requestPath);
      expect({ requestPath, status: reply.status, success: reply.json.success }).toEqual({ requestPath, status: 404, success: false });
    }
  });
});
