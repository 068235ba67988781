import type { TesseractBlock, TesseractBox, TesseractLine, TesseractWord } from "./tesseract-reader.ts";

/**
 * The native CLI's TSV (one row per page, block, paragraph, line and word, with the word's
 * confidence) as tesseract.js's blocks of paragraphs of lines of words, and the page's mean word
 * confidence as Tesseract's `MeanTextConf` counts it (each word's confidence truncated, the mean
 * truncated), so that both runtimes are judged alike by the recognition's confidence rules.
 */
const Level = { Block: 2, Paragraph: 3, Line: 4, Word: 5 } as const;

interface Row {
  readonly level: number;
  readonly block: number;
  readonly paragraph: number;
  readonly line: number;
  readonly bbox: TesseractBox;
  readonly confidence: number;
  readonly text: string;
}

const parseRow = (fields: ReadonlyArray<string>): Row => {
  const [level, , block, paragraph, line, , left, top, width, height, confidence] = fields.slice(0, 11).map(Number);
  const x0 = left ?? 0;
  const y0 = top ?? 0;
  return {
    level: level ?? 0,
    block: block ?? 0,
    paragraph: paragraph ?? 0,
    line: line ?? 0,
    bbox: { x0, y0, x1: x0 + (width ?? 0), y1: y0 + (height ?? 0) },
    confidence: confidence ?? -1,
    text: fields.slice(11).join("\t"),
  };
};

const rowsOf = (tsv: string): ReadonlyArray<Row> =>
  tsv
    .split("\n")
    .slice(1)
    .filter((line) => line !== "")
    .map((line) => parseRow(line.split("\t")));

const meanConfidence = (words: ReadonlyArray<TesseractWord>): number =>
  words.length === 0 ? 0 : words.reduce((sum, word) => sum + word.confidence, 0) / words.length;

export const tsvWordConfidence = (tsv: string): number => {
  const words = rowsOf(tsv).filter((row) => row.level === Level.Word);
  return words.length === 0 ? 0 : Math.trunc(words.reduce((sum, word) => sum + Math.trunc(word.confidence), 0) / words.length);
};

export const tsvBlocks = (tsv: string): ReadonlyArray<TesseractBlock> => {
  const blocks: Array<{ row: Row; paragraphs: Array<{ lines: Array<{ row: Row; words: TesseractWord[] }> }> }> = [];
  for (const row of rowsOf(tsv)) {
    const block = blocks.at(-1);
    const paragraph = block?.paragraphs.at(-1);
    const line = paragraph?.lines.at(-1);
    if (row.level === Level.Block) blocks.push({ row, paragraphs: [] });
    else if (row.level === Level.Paragraph) block?.paragraphs.push({ lines: [] });
    else if (row.level === Level.Line) paragraph?.lines.push({ row, words: [] });
    else if (row.level === Level.Word) line?.words.push({ text: row.text, confidence: row.confidence, bbox: row.bbox });
  }
  return blocks.map(({ row, paragraphs }) => {
    const lines = paragraphs.map((paragraph) =>
      paragraph.lines.map(({ row: lineRow, words }): TesseractLine => ({
        text: `${words.map((word) => word.text).join(" ")}\n`,
        confidence: meanConfidence(words),
        bbox: lineRow.bbox,
        words,
      })),
    );
    const words = lines.flat().flatMap((line) => line.words);
    return {
      text: lines.map((paragraphLines) => paragraphLines.map((line) => line.text).join("")).join("\n"),
      confidence: meanConfidence(words),
      bbox: row.bbox,
      paragraphs: lines.map((paragraphLines) => ({ lines: paragraphLines })),
    };
  });
};
