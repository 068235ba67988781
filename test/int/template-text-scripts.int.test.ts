import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { Effect, ManagedRuntime } from "effect";
import sharp from "sharp";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { useShippedFontconfig } from "../../src/adapters/image/fonts/fontconfig-file.ts";
import { sharedFontCacheFolder, shippedFontFolders } from "../../src/adapters/image/fonts/shipped-font-families.ts";
import { makeDesignRenderer } from "../../src/adapters/image/sharp-design-renderer.ts";
import { TesseractOcrEngine } from "../../src/adapters/ocr/tesseract/tesseract-ocr-engine.ts";
import type { Design, TemplateFont } from "../../src/domain/account-templates/account-template-design.ts";
import { OcrEngine, type OcrLanguage } from "../../src/ports/engines/ocr-engine.ts";
import { queuedOcrEngineLayer } from "../../src/queued-ocr-engine.ts";
import { cerCount, cerPercent } from "../support/character-error-rate.ts";

/**
 * Issue 27: text layers in Latin, Arabic, Hebrew and Chinese (traditional and simplified), drawn by
 * the design renderer (libvips through Pango), compared with golden images and read back by the
 * project's OCR (Tesseract). The goldens were written from renders that were looked at: Arabic
 * joined and right to left, Hebrew right to left, Chinese broken between characters. To refresh
 * them after a deliberate change (fonts, Pango, the text fitting), run this file with
 * UPDATE_TEMPLATE_GOLDENS=1, LOOK at every PNG written under test/fixtures/template-text/, and
 * commit them only if they read right. The text is drawn with the fonts the service ships (issue 45),
 * through the fontconfig file the service writes, never with the machine's own fonts.
 */
const GOLDENS = path.join(import.meta.dirname, "../fixtures/template-text");
const UPDATE = process.env["UPDATE_TEMPLATE_GOLDENS"] === "1";

interface Script {
  readonly name: string;
  readonly font: TemplateFont;
  readonly align: "left" | "right";
  /** The OCR language; none: the golden alone (Latin is read back over HTTPS, account-template-render.e2e.test.ts). */
  readonly ocr?: OcrLanguage;
  readonly maxCer?: number;
  readonly text: string;
}

const SCRIPTS: ReadonlyArray<Script> = [
  { name: "latin", font: "Noto Sans", align: "left", text: "Templates of your own: the headline changes per call." },
  { name: "arabic", font: "Noto Sans Arabic", align: "right", ocr: "ara", maxCer: 5, text: "مرحبا بكم في خدمة الصور الجديدة" },
  { name: "hebrew", font: "Noto Sans Hebrew", align: "right", ocr: "heb", maxCer: 5, text: "ברוכים הבאים לשירות התמונות החדש" },
  {
    name: "chinese-traditional",
    font: "Noto Sans CJK TC",
    align: "left",
    ocr: "chi_tra",
    maxCer: 5,
    text: "歡迎使用我們全新的圖片服務，設計一次就能自動產生每一種尺寸。",
  },
  {
    name: "chinese-simplified",
    font: "Noto Sans CJK SC",
    align: "left",
    ocr: "chi_sim",
    maxCer: 5,
    text: "欢迎使用我们全新的图片服务，设计一次就能自动生成每一种尺寸。",
  },
];

const BOX = { x: 20, y: 20, width: 600, height: 160 } as const;
const designOf = ({ font, align, text }: Script): Design => ({
  canvas: { width: 640, height: 200, background: "#ffffff", format: "png" },
  layers: [{ type: "text", name: "body", box: BOX, font, weight: 700, color: "#000000", maxSize: 48, minSize: 20, align, lineHeight: 1.3, text }],
});

useShippedFontconfig(fs.mkdtempSync(path.join(os.tmpdir(), "its-fonts-")), shippedFontFolders(), sharedFontCacheFolder());
const render = makeDesignRenderer({ maxPixels: 10_000_000, timeoutSeconds: 30 });
const rendered = new Map<string, Buffer>();

beforeAll(async () => {
  for (const script of SCRIPTS) {
    const image = await Effect.runPromise(render(designOf(script), { images: {}, text: {} }));
    rendered.set(script.name, Buffer.from(image.bytes));
  }
});

/** Pixels whose grey differs by more than a quarter of the range: anti-aliasing moves less than that. */
const differingPixels = async (a: Buffer, b: Buffer) => {
  const [x, y] = await Promise.all([a, b].map((png) => sharp(png).greyscale().raw().toBuffer({ resolveWithObject: true })));
  expect([x!.info.width, x!.info.height]).toEqual([y!.info.width, y!.info.height]);
  let differing = 0;
  for (let i = 0; i < x!.data.length; i++) if (Math.abs(x!.data[i]! - y!.data[i]!) > 64) differing++;
  return differing / x!.data.length;
};

describe("text layers in every script the fonts cover", () => {
  it.each(SCRIPTS.map((script) => [script.name, script] as const))("%s matches its golden image within 0.5 % of the pixels", async (name) => {
    const png = rendered.get(name)!;
    const golden = path.join(GOLDENS, `${name}.png`);
    if (UPDATE || !fs.existsSync(golden)) {
      fs.writeFileSync(golden, png);
      if (!UPDATE) throw new Error(`${golden} was missing and has been written: look at it, then commit it`);
    }
    expect(await differingPixels(png, fs.readFileSync(golden))).toBeLessThanOrEqual(0.005);
  });

  it("draws every script inside its box: the pixels outside it stay white", async () => {
    for (const [name, png] of rendered) {
      const { data, info } = await sharp(png).greyscale().raw().toBuffer({ resolveWithObject: true });
      let outside = 0;
      for (let y = 0; y < info.height; y++)
        for (let x = 0; x < info.width; x++) {
          const inside = x >= BOX.x && x < BOX.x + BOX.width && y >= BOX.y && y < BOX.y + BOX.height;
          if (!inside && data[y * info.width + x]! < 250) outside++;
        }
      expect({ name, outside }).toEqual({ name, outside: 0 });
    }
  });

  it("aligns right-to-left text as the eye sees it: align right is flush right, align left flush left, every line", async () => {
    const arabic = SCRIPTS.find((script) => script.name === "arabic")!;
    for (const align of ["left", "right"] as const) {
      const image = await Effect.runPromise(render(designOf({ ...arabic, align }), { images: {}, text: {} }));
      const { data, info } = await sharp(image.bytes).greyscale().raw().toBuffer({ resolveWithObject: true });
      // Lines: runs of inked rows, apart by at least 6 blank rows (an Arabic line's dots sit closer than that).
      const lines: Array<{ left: number; right: number; blank: number }> = [];
      for (let y = 0; y < info.height; y++) {
        const inked = [...Array(info.width).keys()].filter((x) => data[y * info.width + x]! < 128);
        const line = lines.at(-1);
        if (inked.length === 0) {
          if (line) line.blank++;
          continue;
        }
        const [left, right] = [Math.min(...inked), Math.max(...inked)];
        if (line === undefined || line.blank >= 6) lines.push({ left, right, blank: 0 });
        else Object.assign(line, { left: Math.min(line.left, left), right: Math.max(line.right, right), blank: 0 });
      }
      expect(lines.length, align).toBe(2);
      for (const { left, right } of lines) {
        if (align === "right") expect(BOX.x + BOX.width - 1 - right, align).toBeLessThan(8);
        else expect(left - BOX.x, align).toBeLessThan(8);
      }
    }
  });

  describe("read back by the project's OCR", () => {
    const runtime = ManagedRuntime.make(queuedOcrEngineLayer()(TesseractOcrEngine.layer()));
    afterAll(() => runtime.dispose());
    it.each(SCRIPTS.filter((script) => script.ocr !== undefined).map((script) => [script.name, script] as const))(
      "%s: shaped and ordered, read at its character error rate bound",
      { timeout: 120_000 },
      async (name, { ocr, maxCer, text }) => {
        const png = rendered.get(name)!;
        const result = await runtime.runPromise(
          Effect.flatMap(OcrEngine, (engine) =>
            engine.recognize({ image: { bytes: png, format: "png", width: 640, height: 200 }, language: [ocr!], outputFormat: "text" }),
          ),
        );
        const cer = cerPercent([cerCount(result.text, text)]);
        console.log(`[template text] ${name}: OCR read ${JSON.stringify(result.text.trim())}: CER ${cer.toFixed(2)} %`);
        expect(cer).toBeLessThanOrEqual(maxCer!);
      },
    );
  });
});
