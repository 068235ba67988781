import type { OcrBlock } from "../../../ports/engines/ocr-engine.ts";
import { tidyOcrText } from "../ocr-text.ts";
import type { TesseractPage } from "./tesseract-reader.ts";

/** Tesseract's blocks, paragraphs, lines and words as the service's blocks of lines (paragraphs folded, empty lines dropped). */
export const pageBlocks = (page: TesseractPage): ReadonlyArray<OcrBlock> =>
  (page.blocks ?? []).flatMap((block) => {
    const lines = block.paragraphs.flatMap((paragraph) =>
      paragraph.lines
        .map((line) => ({
          text: tidyOcrText(line.text),
          confidence: line.confidence,
          bbox: line.bbox,
          words: line.words.filter((word) => word.text.trim() !== "").map((word) => ({ text: word.text, confidence: word.confidence, bbox: word.bbox })),
        }))
        .filter((line) => line.words.length > 0),
    );
    return lines.length === 0 ? [] : [{ text: tidyOcrText(block.text), confidence: block.confidence, bbox: block.bbox, lines }];
  });
