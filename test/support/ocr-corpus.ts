import { execFileSync } from "node:child_process";
import sharp from "sharp";
import { type CorpusLanguage, corpusLanguages, paragraphs, receiptLines, tableRows } from "./ocr-corpus-texts.ts";

/**
 * A generated OCR corpus with ground truth: text rendered by pango (through sharp) in system
 * fonts, then degraded. Generated at test/bench time, never committed.
 *
 * Fonts come from Debian packages: fonts-dejavu-core (Latin), fonts-noto-cjk (chi_sim, jpn),
 * fonts-noto-core (ara). Nothing is installed here: `missingFontFamilies` says what is absent.
 */
export type Layout = "paragraph" | "columns" | "receipt" | "table";
export type Variant = "clean" | "noisy" | "blurred" | "rotated" | "rotated90" | "rotated180" | "low-contrast" | "small";

export interface CorpusSpec {
  readonly language: CorpusLanguage;
  readonly layout: Layout;
  readonly variant: Variant;
  readonly font: string;
  readonly fontSize: number;
  readonly textIndex: 0 | 1;
}

export interface CorpusSample extends CorpusSpec {
  readonly id: string;
  readonly groundTruth: string;
  readonly png: Uint8Array;
}

const dejaVu = ["DejaVu Sans", "DejaVu Serif", "DejaVu Sans Mono"] as const;
export const fontsFor: Record<CorpusLanguage, readonly string[]> = {
  eng: dejaVu,
  deu: dejaVu,
  fra: dejaVu,
  spa: dejaVu,
  ita: dejaVu,
  por: dejaVu,
  nld: dejaVu,
  chi_sim: ["Noto Sans CJK SC", "Noto Serif CJK SC"],
  jpn: ["Noto Sans CJK JP", "Noto Serif CJK JP"],
  ara: ["Noto Naskh Arabic", "Noto Sans Arabic"],
};

const aptPackageOf = (family: string): string =>
  family.startsWith("DejaVu") ? "fonts-dejavu-core" : family.includes("CJK") ? "fonts-noto-cjk" : "fonts-noto-core";

/**
 * Font families the corpus needs that fontconfig does not know, with the Debian package of each
 * (or fontconfig itself, whose `fc-list` answers the question, when it is missing).
 */
export const missingFontFamilies = (languages: ReadonlyArray<CorpusLanguage>): ReadonlyArray<string> => {
  let listing: string;
  try {
    listing = execFileSync("fc-list", [":", "family"], { encoding: "utf8" });
  } catch {
    return ["fc-list (fontconfig)"];
  }
  const installed = new Set(listing.split("\n").flatMap((line) => line.split(",").map((name) => name.trim())));
  const needed = new Set(languages.flatMap((language) => fontsFor[language]));
  return [...needed].filter((family) => !installed.has(family)).map((family) => `${family} (${aptPackageOf(family)})`);
};

export const sampleId = (spec: CorpusSpec): string =>
  [spec.language, spec.layout, spec.variant, spec.font.replaceAll(" ", ""), spec.fontSize, spec.textIndex].join("-");

/** Deterministic noise, so every run sees the same pixels. */
const mulberry32 = (seed: number) => () => {
  seed = (seed + 0x6d2b79f5) | 0;
  let t = Math.imul(seed ^ (seed >>> 15), 1 | seed);
  t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
  return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
};
const hash = (text: string) => [...text].reduce((h, c) => (Math.imul(h, 31) + c.charCodeAt(0)) | 0, 7);

const escapeMarkup = (text: string) => text.replaceAll("&", "&amp;").replaceAll("<", "&lt;").replaceAll(">", "&gt;");

const isCjk = (language: CorpusLanguage) => language === "chi_sim" || language === "jpn";

interface Ink {
  readonly foreground: string;
  readonly background: string;
}
const inkFor = (variant: Variant): Ink =>
  variant === "low-contrast" ? { foreground: "#7c8598", background: "#c4bfae" } : { foreground: "#1c1c1c", background: "#ffffff" };

/** One block of wrapped text, rendered by pango at 72 dpi (so a point is a pixel). */
const textBlock = async (text: string, spec: CorpusSpec, ink: Ink, width: number) => {
  const { data, info } = await sharp({
    text: {
      text: `<span foreground="${ink.foreground}">${escapeMarkup(text)}</span>`,
      font: `${spec.font} ${spec.fontSize}`,
      width,
      dpi: 72,
      rgba: true,
      wrap: "word-char",
      align: spec.language === "ara" ? "right" : "left",
      spacing: Math.round(spec.fontSize * 0.35),
    },
  })
    .png()
    .toBuffer({ resolveWithObject: true });
  return { png: data, width: info.width, height: info.height };
};

const onCanvas = async (parts: ReadonlyArray<{ png: Buffer; left: number; top: number }>, width: number, height: number, ink: Ink) =>
  sharp({ create: { width, height, channels: 3, background: ink.background } })
    .composite(parts.map(({ png, left, top }) => ({ input: png, left, top })))
    .png()
    .toBuffer();

const lineWidthFor = (spec: CorpusSpec) => Math.round(spec.fontSize * (isCjk(spec.language) ? 22 : 30));

const renderLayout = async (spec: CorpusSpec, ink: Ink): Promise<{ png: Buffer; groundTruth: string }> => {
  const margin = Math.max(24, spec.fontSize * 2);
  switch (spec.layout) {
    case "paragraph": {
      const text = paragraphs[spec.language][spec.textIndex];
      const block = await textBlock(text, spec, ink, lineWidthFor(spec));
      const png = await onCanvas([{ png: block.png, left: margin, top: margin }], block.width + 2 * margin, block.height + 2 * margin, ink);
      return { png, groundTruth: text };
    }
    case "columns": {
      const [first, second] = paragraphs[spec.language];
      const columnWidth = Math.round(lineWidthFor(spec) * 0.6);
      const gutter = spec.fontSize * 3;
      // Reading order runs from the left column in Latin and CJK text, from the right in Arabic.
      const [leftText, rightText] = spec.language === "ara" ? [second, first] : [first, second];
      const left = await textBlock(leftText, spec, ink, columnWidth);
      const right = await textBlock(rightText, spec, ink, columnWidth);
      const png = await onCanvas(
        [
          { png: left.png, left: margin, top: margin },
          { png: right.png, left: margin + columnWidth + gutter, top: margin },
        ],
        2 * columnWidth + gutter + 2 * margin,
        Math.max(left.height, right.height) + 2 * margin,
        ink,
      );
      return { png, groundTruth: `${first}\n${second}` };
    }
    case "receipt": {
      const lines = receiptLines[spec.language] ?? [];
      const text = lines.map(([item, price]) => `${item.padEnd(20)}${price.padStart(8)}`).join("\n");
      const block = await textBlock(text, { ...spec, font: "DejaVu Sans Mono" }, ink, spec.fontSize * 20);
      const png = await onCanvas([{ png: block.png, left: margin, top: margin }], block.width + 2 * margin, block.height + 2 * margin, ink);
      return { png, groundTruth: lines.map(([item, price]) => `${item} ${price}`.trim()).join("\n") };
    }
    case "table": {
      const rows = tableRows[spec.language] ?? [];
      const cellWidth = spec.fontSize * 9;
      const rowHeight = Math.round(spec.fontSize * 2.2);
      const columns = rows[0]?.length ?? 0;
      const width = columns * cellWidth + 2 * margin;
      const height = rows.length * rowHeight + 2 * margin;
      const grid = [
        ...rows.map((_, r) => `<line x1="${margin}" x2="${width - margin}" y1="${margin + r * rowHeight}" y2="${margin + r * rowHeight}"/>`),
        `<line x1="${margin}" x2="${width - margin}" y1="${height - margin}" y2="${height - margin}"/>`,
        ...Array.from(
          { length: columns + 1 },
          (_, c) => `<line y1="${margin}" y2="${height - margin}" x1="${margin + c * cellWidth}" x2="${margin + c * cellWidth}"/>`,
        ),
      ].join("");
      const cells = rows.flatMap((row, r) =>
        row.map(
          (cell, c) =>
            `<text x="${margin + c * cellWidth + spec.fontSize * 0.6}" y="${margin + r * rowHeight + rowHeight * 0.68}"${r === 0 ? ' font-weight="bold"' : ""}>${escapeMarkup(cell)}</text>`,
        ),
      );
      const svg = `<svg xmlns="http://www.w3.org/2000/svg" width="${width}" height="${height}"><rect width="100%" height="100%" fill="${ink.background}"/><g stroke="${ink.foreground}" stroke-width="1.5">${grid}</g><g fill="${ink.foreground}" font-family="${spec.font}" font-size="${spec.fontSize}">${cells.join("")}</g></svg>`;
      const png = await sharp(Buffer.from(svg)).png().toBuffer();
      return { png, groundTruth: rows.map((row) => row.join(" ")).join("\n") };
    }
  }
};

const degrade = async (png: Buffer, spec: CorpusSpec, id: string, ink: Ink): Promise<Buffer> => {
  switch (spec.variant) {
    case "clean":
    case "low-contrast":
    case "small":
      return png;
    case "blurred":
      return sharp(png).blur(1.3).png().toBuffer();
    case "rotated":
      return sharp(png).rotate(4, { background: ink.background }).png().toBuffer();
    case "rotated90":
      return sharp(png).rotate(90).png().toBuffer();
    case "rotated180":
      return sharp(png).rotate(180).png().toBuffer();
    case "noisy": {
      const { data, info } = await sharp(png).greyscale().raw().toBuffer({ resolveWithObject: true });
      const random = mulberry32(hash(id));
      for (let i = 0; i < data.length; i++) {
        // Sum of uniforms: roughly Gaussian grain with a standard deviation near 30 levels.
        const grain = (random() + random() + random() - 1.5) * 60;
        data[i] = Math.max(0, Math.min(255, (data[i] ?? 0) + grain));
      }
      return sharp(data, { raw: { width: info.width, height: info.height, channels: 1 } })
        .png()
        .toBuffer();
    }
  }
};

export const renderSample = async (spec: CorpusSpec): Promise<CorpusSample> => {
  const id = sampleId(spec);
  const ink = inkFor(spec.variant);
  const { png, groundTruth } = await renderLayout(spec, ink);
  return { ...spec, id, groundTruth, png: new Uint8Array(await degrade(png, spec, id, ink)) };
};

/** Every variant of every language: the bench corpus. */
export const fullCorpus = (languages: ReadonlyArray<CorpusLanguage> = corpusLanguages): ReadonlyArray<CorpusSpec> =>
  languages.flatMap((language) => {
    const fonts = fontsFor[language];
    const base = (font: string, textIndex: 0 | 1): Omit<CorpusSpec, "variant"> => ({
      language,
      layout: "paragraph",
      font,
      fontSize: 22,
      textIndex,
    });
    const variants: ReadonlyArray<CorpusSpec> = [
      ...fonts.flatMap((font, i) => [
        { ...base(font, 0), variant: "clean" as const },
        { ...base(font, 1), variant: "clean" as const, fontSize: 16 + 6 * i },
      ]),
      { ...base(fonts[0] ?? "", 1), variant: "noisy" },
      { ...base(fonts[1] ?? "", 0), variant: "blurred" },
      { ...base(fonts[0] ?? "", 0), variant: "rotated" },
      { ...base(fonts[1] ?? "", 1), variant: "rotated90" },
      { ...base(fonts[0] ?? "", 1), variant: "rotated180" },
      { ...base(fonts[0] ?? "", 1), variant: "low-contrast" },
      { ...base(fonts[0] ?? "", 0), variant: "small", fontSize: 11 },
      { ...base(fonts[0] ?? "", 0), layout: "columns", variant: "clean", fontSize: 18 },
    ];
    const layouts: ReadonlyArray<CorpusSpec> = [
      ...(receiptLines[language] ? [{ ...base("DejaVu Sans Mono", 0), layout: "receipt" as const, variant: "clean" as const, fontSize: 18 }] : []),
      ...(tableRows[language] ? [{ ...base(fonts[0] ?? "", 0), layout: "table" as const, variant: "clean" as const, fontSize: 18 }] : []),
    ];
    return [...variants, ...layouts];
  });

/** A few pages per language, for tests that must stay quick. */
export const smallCorpus = (languages: ReadonlyArray<CorpusLanguage> = corpusLanguages): ReadonlyArray<CorpusSpec> =>
  languages.flatMap((language) => {
    const font = fontsFor[language][0] ?? "";
    const clean: CorpusSpec = { language, layout: "paragraph", variant: "clean", font, fontSize: 22, textIndex: 0 };
    return language === "eng"
      ? [
          clean,
          { ...clean, variant: "noisy", textIndex: 1 },
          { ...clean, variant: "rotated90", font: "DejaVu Serif" },
          { ...clean, variant: "small", fontSize: 11 },
          { ...clean, layout: "receipt", font: "DejaVu Sans Mono", fontSize: 18 },
          { ...clean, layout: "table", fontSize: 18 },
        ]
      : [clean];
  });
