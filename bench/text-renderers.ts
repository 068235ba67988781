import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { performance } from "node:perf_hooks";
import { Effect, ManagedRuntime } from "effect";
import sharp, { type OverlayOptions } from "sharp";
import { drawTextLayer } from "../src/adapters/image/sharp-text-layer.ts";
import { TesseractOcrEngine } from "../src/adapters/ocr/tesseract/tesseract-ocr-engine.ts";
import type { TextLayer } from "../src/domain/account-templates/account-template-design.ts";
import { OcrEngine, type OcrLanguage } from "../src/ports/engines/ocr-engine.ts";
import { queuedOcrEngineLayer } from "../src/queued-ocr-engine.ts";
import { cerCount, cerPercent } from "../test/support/character-error-rate.ts";
import { satoriAtSize, type SatoriFonts, satoriTextLayer } from "./support/satori-text-layer.ts";
import { fontFace } from "./support/ttc-face.ts";

/**
 * Issue 27: text layers through libvips/Pango (sharp's text input, what the service draws with)
 * against satori + resvg, the same boxes, the same fonts (Debian's Noto, the files the service's
 * Pango finds through fontconfig) and the same fitting policy, in one run, alternating. Per box:
 * the time to draw it fitted (shrunk from maxSize, or ellipsised at minSize) and to draw it once at
 * its fitted size, p50/p95 per side and the ratio; how much of it held the event loop; then each
 * side's pictures, inside the box or not, and read back by the project's OCR (character error rate).
 * Usage: node bench/text-renderers.ts [rounds, default 20] [folder for the pictures]
 */
const rounds = Number(process.argv[2] ?? 20);
const outDir = process.argv[3] ?? path.join(os.tmpdir(), "text-renderers");
fs.mkdirSync(outDir, { recursive: true });

const NOTO = "/usr/share/fonts/truetype/noto";
const CJK = "/usr/share/fonts/opentype/noto";
const loadStart = performance.now();
const fonts: SatoriFonts = [
  { name: "Noto Sans", data: fs.readFileSync(`${NOTO}/NotoSans-Regular.ttf`), weight: 400, style: "normal" },
  { name: "Noto Sans", data: fs.readFileSync(`${NOTO}/NotoSans-Bold.ttf`), weight: 700, style: "normal" },
  { name: "Noto Sans Arabic", data: fs.readFileSync(`${NOTO}/NotoSansArabic-Regular.ttf`), weight: 400, style: "normal" },
  { name: "Noto Sans Arabic", data: fs.readFileSync(`${NOTO}/NotoSansArabic-Bold.ttf`), weight: 700, style: "normal" },
  // fonts-noto-cjk ships collections only; satori takes single fonts (bench/support/ttc-face.ts).
  { name: "Noto Sans CJK TC", data: fontFace(`${CJK}/NotoSansCJK-Regular.ttc`, "Noto Sans CJK TC"), weight: 400, style: "normal" },
  { name: "Noto Sans CJK TC", data: fontFace(`${CJK}/NotoSansCJK-Bold.ttc`, "Noto Sans CJK TC"), weight: 700, style: "normal" },
];
const fontLoadMs = performance.now() - loadStart;

interface Case {
  readonly name: string;
  readonly layer: TextLayer;
  /** Read back at this language; none for a text cut with an ellipsis (what is drawn is a prefix). */
  readonly ocr?: OcrLanguage;
}
const text = (name: string, box: { width: number; height: number }, rest: Partial<TextLayer> & Pick<TextLayer, "font" | "text">): TextLayer => ({
  type: "text",
  name,
  box: { x: 0, y: 0, ...box },
  color: "#000000",
  maxSize: 72,
  minSize: 16,
  weight: 400,
  ...rest,
});
const long = "Templates of your own draw text that fits the box it was given and nothing outside it. ".repeat(5).slice(0, 400);
const CASES: ReadonlyArray<Case> = [
  {
    name: "latin-headline",
    ocr: "eng",
    layer: text(
      "title",
      { width: 520, height: 260 },
      { font: "Noto Sans", weight: 700, maxSize: 96, minSize: 20, text: "Launch day: our new image API draws your headline in every size" },
    ),
  },
  {
    name: "arabic",
    ocr: "ara",
    layer: text(
      "title",
      { width: 520, height: 200 },
      { font: "Noto Sans Arabic", weight: 700, align: "right", text: "مرحبا بكم في خدمة الصور الجديدة، صمم مرة واحدة واحصل على كل المقاسات" },
    ),
  },
  {
    name: "cjk",
    ocr: "chi_tra",
    layer: text(
      "title",
      { width: 520, height: 260 },
      { font: "Noto Sans CJK TC", text: "歡迎使用我們全新的圖片服務，設計一次就能自動產生每一種尺寸，標題會自動換行並縮小到適合的大小。" },
    ),
  },
  { name: "latin-400-chars", layer: text("body", { width: 520, height: 160 }, { font: "Noto Sans", maxSize: 48, minSize: 20, text: long }) },
];

type Side = "pango" | "satori";
const fitted = (side: Side, layer: TextLayer) => (side === "pango" ? drawTextLayer(layer, layer.text) : satoriTextLayer(layer, layer.text, fonts));
/** One drawing of the whole text at `size`: the box made tall enough that neither side tries another size or cuts the text. */
const atSize = (side: Side, layer: TextLayer, size: number) => {
  const tall = { ...layer, box: { ...layer.box, height: 4096 }, maxSize: size, minSize: size };
  return side === "pango" ? drawTextLayer(tall, layer.text) : satoriAtSize(tall, layer.text, size, fonts);
};

// The first satori call parses the fonts it uses; reported apart, then both sides warm up.
const firstCall: Record<string, number> = {};
const rssBefore = process.memoryUsage().rss;
for (const { name, layer } of CASES) {
  const start = performance.now();
  await satoriAtSize(layer, layer.text, layer.minSize, fonts);
  firstCall[name] = performance.now() - start;
}
const satoriRss = process.memoryUsage().rss - rssBefore;
const sizes = new Map<string, Record<Side, number>>();
for (const { name, layer } of CASES) {
  const [pango, satori] = [(await fitted("pango", layer))!, (await fitted("satori", layer))!];
  sizes.set(name, { pango: pango.size, satori: satori.size });
}

const timings = new Map<string, Record<`${Side} ${"fitted" | "at size"}`, Array<number>>>();
const busy: Record<Side, { active: number; wall: number }> = { pango: { active: 0, wall: 0 }, satori: { active: 0, wall: 0 } };
const timed = async <T>(side: Side, work: () => Promise<T>): Promise<number> => {
  const [elu, start] = [performance.eventLoopUtilization(), performance.now()];
  await work();
  const used = performance.eventLoopUtilization(elu);
  busy[side].active += used.active;
  busy[side].wall += used.active + used.idle;
  return performance.now() - start;
};
for (let round = 0; round < rounds; round++) {
  for (const { name, layer } of CASES) {
    const entry = timings.get(name) ?? { "pango fitted": [], "satori fitted": [], "pango at size": [], "satori at size": [] };
    timings.set(name, entry);
    // Alternating which side goes first, so neither always meets a warmer cache or a quieter machine.
    for (const side of (round % 2 === 0 ? ["pango", "satori"] : ["satori", "pango"]) as ReadonlyArray<Side>) {
      entry[`${side} fitted`].push(await timed(side, () => fitted(side, layer)));
      entry[`${side} at size`].push(await timed(side, () => atSize(side, layer, sizes.get(name)![side])));
    }
  }
}

const percentile = (values: ReadonlyArray<number>, p: number) =>
  [...values].sort((a, b) => a - b)[Math.min(values.length - 1, Math.ceil(p * values.length) - 1)]!;
const ms = (value: number) => value.toFixed(1).padStart(7);
console.log(
  `[text renderers] ${rounds} rounds, ${os.cpus().length} CPUs, load average ${os.loadavg()[0]!.toFixed(1)}; satori's fonts read in ${fontLoadMs.toFixed(0)} ms, their first use grew the process by ${(satoriRss / 2 ** 20).toFixed(0)} MiB`,
);
console.log("box              | fitted size P/S | fitted p50 P / S (ms)  p95 P / S  S÷P  | one size p50 P / S  S÷P | satori first call");
for (const { name } of CASES) {
  const t = timings.get(name)!;
  const p50 = (key: keyof typeof t) => percentile(t[key], 0.5);
  const p95 = (key: keyof typeof t) => percentile(t[key], 0.95);
  const size = sizes.get(name)!;
  console.log(
    `${name.padEnd(16)} | ${String(size.pango).padStart(3)} / ${String(size.satori).padEnd(7)} | ${ms(p50("pango fitted"))} / ${ms(p50("satori fitted"))} ${ms(p95("pango fitted"))} / ${ms(p95("satori fitted"))} ${(p50("satori fitted") / p50("pango fitted")).toFixed(2).padStart(5)} | ${ms(p50("pango at size"))} / ${ms(p50("satori at size"))} ${(p50("satori at size") / p50("pango at size")).toFixed(2).padStart(5)} | ${ms(firstCall[name]!)}`,
  );
}
for (const side of ["pango", "satori"] as const)
  console.log(`[text renderers] ${side}: the event loop was busy ${((100 * busy[side].active) / busy[side].wall).toFixed(0)} % of its timed wall time`);

// Quality: each side's picture on white with a margin, inside its box or not, and read back by the OCR.
const runtime = ManagedRuntime.make(queuedOcrEngineLayer()(TesseractOcrEngine.layer()));
const MARGIN = 20;
const sheet: Array<OverlayOptions> = [];
let sheetHeight = 0;
try {
  for (const { name, layer, ocr } of CASES) {
    const row: Array<string> = [];
    let rowHeight = 0;
    for (const [column, side] of (["pango", "satori"] as const).entries()) {
      const drawn = (await fitted(side, layer))!;
      const width = layer.box.width + 2 * MARGIN;
      const height = layer.box.height + 2 * MARGIN;
      const left = (layer.align ?? "left") === "right" ? MARGIN + layer.box.width - drawn.width : MARGIN;
      const page = await sharp({ create: { width, height, channels: 3, background: "#ffffff" } })
        .composite([
          {
            input: Buffer.from(
              `<svg width="${width}" height="${height}"><rect x="${MARGIN - 1}" y="${MARGIN - 1}" width="${layer.box.width + 2}" height="${layer.box.height + 2}" fill="none" stroke="#dddddd"/></svg>`,
            ),
          },
          { input: drawn.png, left: Math.max(0, left), top: MARGIN },
        ])
        .png()
        .toBuffer();
      fs.writeFileSync(path.join(outDir, `${name}-${side}.png`), page);
      sheet.push({ input: page, left: column * (560 + MARGIN), top: sheetHeight });
      rowHeight = Math.max(rowHeight, height);
      const inside = drawn.width <= layer.box.width && drawn.height <= layer.box.height;
      let read = "";
      if (ocr !== undefined) {
        const result = await runtime.runPromise(
          Effect.flatMap(OcrEngine, (engine) =>
            engine.recognize({ image: { bytes: page, format: "png", width, height }, language: [ocr], outputFormat: "text" }),
          ),
        );
        read = `OCR ${ocr} CER ${cerPercent([cerCount(result.text, layer.text)]).toFixed(1)} % read ${JSON.stringify(result.text.trim().replace(/\s+/g, " "))}`;
      }
      row.push(
        `${side}: ${drawn.width}×${drawn.height} at ${drawn.size} px, ${inside ? "inside" : "OUTSIDE"} its ${layer.box.width}×${layer.box.height} box; ${read}`,
      );
    }
    sheetHeight += rowHeight + MARGIN;
    console.log(`[text renderers] ${name}\n  ${row.join("\n  ")}`);
  }
} finally {
  await runtime.dispose();
}
const sheetFile = path.join(outDir, "pango-vs-satori.png");
await sharp({ create: { width: 2 * 560 + MARGIN, height: sheetHeight, channels: 3, background: "#ffffff" } })
  .composite(sheet)
  .png({ palette: true })
  .toFile(sheetFile);
console.log(`[text renderers] pictures (left Pango, right satori + resvg): ${sheetFile}`);
