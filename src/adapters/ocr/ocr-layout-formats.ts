import { type OcrBlock, type OcrBox, ocrLanguageCatalogue, type OcrOutputFormat, type OcrRequest, type OcrResult } from "../../ports/engines/ocr-engine.ts";
import type { OcrReading } from "../../ports/engines/ocr-recognizer.ts";
import { searchablePdf } from "../pdf/searchable-pdf.ts";
import { printResolution } from "./ocr-image-preparation.ts";

/**
 * hOCR and TSV written from the engine-neutral layout, so that every engine gives the same
 * shape and the boxes are in the client's coordinates (engines read a prepared copy of the
 * image). TSV follows Tesseract's columns and levels (1 page, 2 block, 3 paragraph, 4 line,
 * 5 word; confidence -1 above word level); hOCR is the page fragment Tesseract emits, with one
 * paragraph per block.
 */
interface Page {
  readonly width: number;
  readonly height: number;
  /** As the result names it: `eng`, or `eng+deu`, whose first language is the page's. */
  readonly language: string;
}

const rightToLeft: ReadonlySet<string> = new Set(["Arabic", "Hebrew"]);

const tsvHeader = "level\tpage_num\tblock_num\tpar_num\tline_num\tword_num\tleft\ttop\twidth\theight\tconf\ttext";

const tsvRow = (level: number, ids: readonly [number, number, number, number], box: OcrBox, conf: number, text: string) =>
  [level, 1, ...ids, box.x0, box.y0, box.x1 - box.x0, box.y1 - box.y0, conf, text.replace(/[\t\n]/g, " ")].join("\t");

export const toTsv = (blocks: ReadonlyArray<OcrBlock>, page: Page): string => {
  const rows = [tsvHeader, tsvRow(1, [0, 0, 0, 0], { x0: 0, y0: 0, x1: page.width, y1: page.height }, -1, "")];
  blocks.forEach((block, b) => {
    rows.push(tsvRow(2, [b + 1, 0, 0, 0], block.bbox, -1, ""), tsvRow(3, [b + 1, 1, 0, 0], block.bbox, -1, ""));
    block.lines.forEach((line, l) => {
      rows.push(tsvRow(4, [b + 1, 1, l + 1, 0], line.bbox, -1, ""));
      line.words.forEach((word, w) => rows.push(tsvRow(5, [b + 1, 1, l + 1, w + 1], word.bbox, Number(word.confidence.toFixed(2)), word.text)));
    });
  });
  return `${rows.join("\n")}\n`;
};

const escapeXml = (text: string) =>
  text.replaceAll("&", "&amp;").replaceAll("<", "&lt;").replaceAll(">", "&gt;").replaceAll("'", "&#39;").replaceAll('"', "&quot;");

const bbox = (box: OcrBox) => `bbox ${box.x0} ${box.y0} ${box.x1} ${box.y1}`;

export const toHocr = (blocks: ReadonlyArray<OcrBlock>, page: Page): string => {
  const pageLanguage = page.language.split("+")[0] ?? page.language;
  const rtl = (language: string) =>
    Object.hasOwn(ocrLanguageCatalogue, language) && rightToLeft.has(ocrLanguageCatalogue[language as keyof typeof ocrLanguageCatalogue].script);
  const out = [`<div class='ocr_page' id='page_1' title='${bbox({ x0: 0, y0: 0, x1: page.width, y1: page.height })}; ppageno 0'>`];
  let wordId = 0;
  blocks.forEach((block, b) => {
    // Each paragraph says its own language and direction: a Latin heading on an Arabic page is left to right.
    const language = block.language ?? pageLanguage;
    out.push(
      ` <div class='ocr_carea' id='block_1_${b + 1}' title="${bbox(block.bbox)}">`,
      `  <p class='ocr_par' id='par_1_${b + 1}' lang='${language}'${rtl(language) ? " dir='rtl'" : ""} title="${bbox(block.bbox)}">`,
    );
    block.lines.forEach((line, l) => {
      const words = line.words.map(
        (word) =>
          `<span class='ocrx_word' id='word_1_${++wordId}' title='${bbox(word.bbox)}; x_wconf ${Math.round(word.confidence)}'>${escapeXml(word.text)}</span>`,
      );
      out.push(`   <span class='ocr_line' id='line_1_${b + 1}_${l + 1}' title="${bbox(line.bbox)}">${words.join(" ")}</span>`);
    });
    out.push("  </p>", " </div>");
  });
  out.push("</div>");
  return `${out.join("\n")}\n`;
};

/**
 * A reading in the format asked for: the one place json, hOCR, TSV and the searchable PDF are made,
 * for every engine. The PDF's page is the image at its size in print: the resolution it states
 * when believable, else 300 dpi, the scans' usual.
 */
export const formatReading = async (request: OcrRequest, reading: OcrReading): Promise<OcrResult> => {
  const format: OcrOutputFormat = request.outputFormat;
  const base = { text: reading.text, language: reading.language, confidence: reading.confidence };
  if (format === "text") return { ...base, outputFormat: "text" };
  if (reading.blocks === undefined) throw new Error(`the engine's reading has no blocks for ${format}`);
  const page = { ...reading.page, language: reading.language };
  switch (format) {
    case "pdf":
      return {
        ...base,
        outputFormat: "pdf",
        pdf: await searchablePdf({ image: request.image.bytes, dpi: await printResolution(request.image.bytes), blocks: reading.blocks }),
      };
    case "json":
      return { ...base, outputFormat: "json", blocks: reading.blocks };
    case "hocr":
      return { ...base, outputFormat: "hocr", hocr: toHocr(reading.blocks, page) };
    case "tsv":
      return { ...base, outputFormat: "tsv", tsv: toTsv(reading.blocks, page) };
  }
};
