import sharp from "sharp";
import type { OcrLanguage, OcrLine, OcrScript } from "../../ports/engines/ocr-engine.ts";
import { preferredOfScript, type ScriptLanguageReading } from "./ocr-scripts.ts";

/**
 * A second script on a page OSD names Latin: an Arabic page with Latin paths and untranslated
 * English paragraphs was named Latin (script confidence 1.8, where an English page scores 23),
 * and read in English alone. English reads the other script's lines unsurely (below
 * `unsureLineConfidence`; on that page 26 of 53 lines, on the English held-out pages none), so
 * those lines, stacked, are what OSD is asked about again, and what the script's languages are
 * told apart on: reading the stack with each is a fraction of reading the page with each.
 */

/** OSD's script confidence below which a page it names Latin may hold another script. */
export const unsureLatinConfidence = 10;
/** Mean word confidence below which English did not read a line: another script, or no text. */
const unsureLineConfidence = 40;
/** Fewer unsure lines than this are noise (a logo, a rule), not a second script. */
const minimumUnsureLines = 2;
/** The stack's height (px) cap: enough text for OSD's vote, not a second page. */
const maximumStackHeight = 4000;
const margin = 8;

/** The lines an English reading was unsure of, when there are enough to ask about. */
export const unsureLines = (lines: ReadonlyArray<OcrLine>): ReadonlyArray<OcrLine> => {
  const unsure = lines.filter((line) => line.confidence < unsureLineConfidence && line.bbox.x1 > line.bbox.x0 && line.bbox.y1 > line.bbox.y0);
  return unsure.length < minimumUnsureLines ? [] : unsure;
};

/** Those lines cut out of the image read and stacked one under another on white, for OSD. */
export const stackedLines = async (png: Buffer, lines: ReadonlyArray<OcrLine>): Promise<Buffer> => {
  const tiles: Array<{ input: Buffer; left: number; top: number }> = [];
  let height = margin;
  let width = 0;
  for (const { bbox } of lines) {
    const lineHeight = bbox.y1 - bbox.y0;
    if (height + lineHeight + margin > maximumStackHeight) break;
    const input = await sharp(png)
      .extract({ left: bbox.x0, top: bbox.y0, width: bbox.x1 - bbox.x0, height: lineHeight })
      .toBuffer();
    tiles.push({ input, left: margin, top: height });
    height += lineHeight + margin;
    width = Math.max(width, bbox.x1 - bbox.x0 + 2 * margin);
  }
  return sharp({ create: { width, height, channels: 3, background: "#ffffff" } })
    .composite(tiles)
    .png()
    .toBuffer();
};

export interface SecondScriptReaders {
  /** OSD's script for an image. */
  readonly scriptOf: (png: Buffer) => Promise<OcrScript | undefined>;
  /** The languages offered for a script, most likely first. */
  readonly candidates: (script: OcrScript) => ReadonlyArray<OcrLanguage>;
  readonly read: (language: OcrLanguage, png: Buffer) => Promise<{ readonly text: string; readonly confidence: number }>;
}

/** The language of the lines English read unsurely, where OSD names them a script other than Latin; undefined where it does not. */
export const secondLanguage = async (png: Buffer, lines: ReadonlyArray<OcrLine>, readers: SecondScriptReaders): Promise<OcrLanguage | undefined> => {
  if (lines.length === 0) return undefined;
  const stack = await stackedLines(png, lines);
  const script = await readers.scriptOf(stack);
  if (script === undefined || script === "Latin") return undefined;
  let best: ScriptLanguageReading | undefined;
  for (const language of readers.candidates(script)) {
    const reading = { language, ...(await readers.read(language, stack)) };
    best = best === undefined ? reading : preferredOfScript(best, reading);
  }
  return best?.language;
};
