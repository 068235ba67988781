import type { OcrBlock, OcrBox, OcrLine, OcrWord } from "../../../ports/engines/ocr-engine.ts";
import { tidyOcrText } from "../ocr-text.ts";
import type { RecognisedLine } from "./paddle-ocr-thread.ts";

/**
 * PaddleOCR reads isolated text lines; this rebuilds the page: line pieces on one row joined,
 * rows stacked into blocks (paragraphs, columns), blocks put in reading order, and word boxes
 * apportioned along each line by character position (the recogniser gives no word boxes).
 */

/** PaddleOCR's drop_score: lines read with less confidence are noise more often than text. */
const minimumLineConfidence = 0.5;

interface Row {
  readonly pieces: RecognisedLine[];
  box: OcrBox;
}

const height = (box: OcrBox) => box.y1 - box.y0;
const verticalOverlap = (a: OcrBox, b: OcrBox) => Math.min(a.y1, b.y1) - Math.max(a.y0, b.y0);
const horizontalOverlap = (a: OcrBox, b: OcrBox) => Math.min(a.x1, b.x1) - Math.max(a.x0, b.x0);
const union = (a: OcrBox, b: OcrBox): OcrBox => ({
  x0: Math.min(a.x0, b.x0),
  y0: Math.min(a.y0, b.y0),
  x1: Math.max(a.x1, b.x1),
  y1: Math.max(a.y1, b.y1),
});
const rounded = (box: OcrBox): OcrBox => ({ x0: Math.round(box.x0), y0: Math.round(box.y0), x1: Math.round(box.x1), y1: Math.round(box.y1) });

/** Pieces of one line: mostly the same height band, separated by no more than a wide word gap. */
const sameRow = (row: Row, piece: OcrBox) => {
  const band = Math.min(height(row.box), height(piece));
  const gap = Math.max(piece.x0 - row.box.x1, row.box.x0 - piece.x1);
  return verticalOverlap(row.box, piece) >= 0.6 * band && gap <= 1.5 * Math.max(height(row.box), height(piece));
};

const wordsOf = (piece: RecognisedLine): OcrWord[] => {
  const characters = [...piece.text];
  const width = piece.x1 - piece.x0;
  const words: OcrWord[] = [];
  let start = 0;
  for (const token of piece.text.split(" ")) {
    const length = [...token].length;
    if (length > 0) {
      words.push({
        text: token,
        confidence: 100 * piece.confidence,
        bbox: rounded({
          x0: piece.x0 + (width * start) / characters.length,
          y0: piece.y0,
          x1: piece.x0 + (width * (start + length)) / characters.length,
          y1: piece.y1,
        }),
      });
    }
    start += length + 1;
  }
  return words;
};

const lineOf = (row: Row): OcrLine => {
  const pieces = [...row.pieces].sort((a, b) => a.x0 - b.x0);
  const characters = pieces.reduce((sum, piece) => sum + piece.text.length, 0);
  return {
    text: tidyOcrText(pieces.map((piece) => piece.text).join(" ")),
    confidence: (100 * pieces.reduce((sum, piece) => sum + piece.confidence * piece.text.length, 0)) / Math.max(1, characters),
    bbox: rounded(row.box),
    words: pieces.flatMap(wordsOf),
  };
};

/** Left-to-right scripts only: the PaddleOCR model offered reads Chinese and Latin text. */
export const layoutPage = (recognised: ReadonlyArray<RecognisedLine>): ReadonlyArray<OcrBlock> => {
  const pieces = recognised.filter((piece) => piece.confidence >= minimumLineConfidence && piece.text !== "").sort((a, b) => a.y0 + a.y1 - (b.y0 + b.y1));
  const rows: Row[] = [];
  for (const piece of pieces) {
    const row = rows.find((candidate) => sameRow(candidate, piece));
    if (row) {
      row.pieces.push(piece);
      row.box = union(row.box, piece);
    } else rows.push({ pieces: [piece], box: { x0: piece.x0, y0: piece.y0, x1: piece.x1, y1: piece.y1 } });
  }
  // A row continues the block whose last row sits just above it and overlaps it sideways.
  const blocks: Array<{ rows: Row[]; box: OcrBox }> = [];
  for (const row of [...rows].sort((a, b) => a.box.y0 - b.box.y0)) {
    const block = blocks.find((candidate) => {
      const last = candidate.rows.at(-1)?.box;
      if (last === undefined) return false;
      const gap = row.box.y0 - last.y1;
      return gap >= -0.3 * height(row.box) && gap <= 1.2 * height(row.box) && horizontalOverlap(candidate.box, row.box) > 0;
    });
    if (block) {
      block.rows.push(row);
      block.box = union(block.box, row.box);
    } else blocks.push({ rows: [row], box: row.box });
  }
  // Side by side blocks read left to right, others top to bottom.
  const ordered = [...blocks].sort((a, b) => {
    const band = Math.min(height(a.rows[0]?.box ?? a.box), height(b.rows[0]?.box ?? b.box));
    if (verticalOverlap(a.box, b.box) > band) return a.box.x0 - b.box.x0;
    return a.box.y0 - b.box.y0;
  });
  return ordered.map((block) => {
    const lines = block.rows.map(lineOf);
    const characters = lines.reduce((sum, line) => sum + line.text.length, 0);
    return {
      text: lines.map((line) => line.text).join("\n"),
      confidence: lines.reduce((sum, line) => sum + line.confidence * line.text.length, 0) / Math.max(1, characters),
      bbox: rounded(block.box),
      lines,
    };
  });
};
