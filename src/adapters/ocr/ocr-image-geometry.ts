import type { OcrBlock, OcrBox, OcrLine, OcrWord } from "../../ports/engines/ocr-engine.ts";

/**
 * Engines read a prepared copy of the image (turned upright, straightened, maybe enlarged);
 * boxes they report are mapped back to the image as the client sees it, so the port speaks
 * one coordinate frame.
 */
export interface PreparedFrame {
  /** Size of the image as displayed (after EXIF orientation). */
  readonly width: number;
  readonly height: number;
  /** Clockwise rotation (degrees) about the centre, onto a canvas grown to fit; then the scale. */
  readonly rotation: number;
  readonly scale: number;
  /** Size of the rotated canvas before scaling. */
  readonly canvasWidth: number;
  readonly canvasHeight: number;
}

const toDisplayed = (frame: PreparedFrame, x: number, y: number): readonly [number, number] => {
  const radians = (frame.rotation * Math.PI) / 180;
  const cos = Math.cos(radians);
  const sin = Math.sin(radians);
  const dx = x / frame.scale - frame.canvasWidth / 2;
  const dy = y / frame.scale - frame.canvasHeight / 2;
  // Inverse of a clockwise turn in y-down coordinates.
  return [frame.width / 2 + cos * dx + sin * dy, frame.height / 2 - sin * dx + cos * dy];
};

export const boxToDisplayed = (frame: PreparedFrame, box: OcrBox): OcrBox => {
  const corners = [
    toDisplayed(frame, box.x0, box.y0),
    toDisplayed(frame, box.x1, box.y0),
    toDisplayed(frame, box.x0, box.y1),
    toDisplayed(frame, box.x1, box.y1),
  ];
  const xs = corners.map(([x]) => x);
  const ys = corners.map(([, y]) => y);
  const clamp = (value: number, max: number) => Math.min(max, Math.max(0, Math.round(value)));
  return {
    x0: clamp(Math.min(...xs), frame.width),
    y0: clamp(Math.min(...ys), frame.height),
    x1: clamp(Math.max(...xs), frame.width),
    y1: clamp(Math.max(...ys), frame.height),
  };
};

const wordToDisplayed = (frame: PreparedFrame, word: OcrWord): OcrWord => ({ ...word, bbox: boxToDisplayed(frame, word.bbox) });
const lineToDisplayed = (frame: PreparedFrame, line: OcrLine): OcrLine => ({
  ...wordToDisplayed(frame, line),
  words: line.words.map((word) => wordToDisplayed(frame, word)),
});

export const blocksToDisplayed = (frame: PreparedFrame, blocks: ReadonlyArray<OcrBlock>): ReadonlyArray<OcrBlock> =>
  frame.rotation === 0 && frame.scale === 1
    ? blocks
    : blocks.map((block) => ({ ...wordToDisplayed(frame, block), lines: block.lines.map((line) => lineToDisplayed(frame, line)) }));
