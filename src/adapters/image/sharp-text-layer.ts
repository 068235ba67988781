import sharp from "sharp";
import type { TextLayer } from "../../domain/account-templates/account-template-design.ts";

/**
 * A text layer as libvips draws it through Pango: wrapped at word boundaries (a word longer than
 * the line is broken between characters), at the largest whole size from maxSize down to minSize
 * whose lines fit the box; at minSize the text is cut at a word with an ellipsis until it fits.
 * Pango lays out in points at `dpi`; at 72 dpi a point is a pixel, so sizes are the box's pixels.
 * Every trial is a layout in libvips' thread, never on the event loop.
 */
export interface DrawnText {
  readonly png: Buffer;
  readonly width: number;
  readonly height: number;
  readonly size: number;
}

const ELLIPSIS = "…";

const escapeMarkup = (text: string) => text.replace(/&/g, "&amp;").replace(/</g, "&lt;").replace(/>/g, "&gt;").replace(/"/g, "&quot;").replace(/'/g, "&apos;");

const span = (layer: TextLayer, text: string) => {
  const colour = layer.color.slice(0, 7);
  const alpha = layer.color.length === 9 ? ` fgalpha="${Math.max(1, Math.round((parseInt(layer.color.slice(7), 16) / 255) * 100))}%"` : "";
  return `<span foreground="${colour}"${alpha} font_weight="${Math.round(layer.weight ?? 400)}">${escapeMarkup(text)}</span>`;
};

const RIGHT_TO_LEFT = /[\p{Script=Arabic}\p{Script=Hebrew}\p{Script=Syriac}\p{Script=Thaana}\p{Script=Nko}]/u;

/**
 * Pango mirrors left and right for a paragraph whose first letter is right to left (its alignment
 * means start and end); a layer's `align` means what the eye sees, so it is mirrored back. The
 * text's first letter decides for all its lines.
 */
const pangoAlign = (layer: TextLayer, text: string) => {
  const align = layer.align ?? "left";
  if (align === "center" || !RIGHT_TO_LEFT.test(text.match(/\p{L}/u)?.[0] ?? "")) return align;
  return align === "left" ? "right" : "left";
};

const draw = async (layer: TextLayer, text: string, size: number): Promise<DrawnText> => {
  const { data, info } = await sharp({
    text: {
      text: span(layer, text),
      font: `${layer.font} ${size}px`,
      width: layer.box.width,
      dpi: 72,
      rgba: true,
      align: pangoAlign(layer, text),
      wrap: "word-char",
      spacing: Math.round(size * ((layer.lineHeight ?? 1.2) - 1)),
    },
  })
    .png()
    .toBuffer({ resolveWithObject: true });
  return { png: data, width: info.width, height: info.height, size };
};

const fits = (layer: TextLayer, drawn: DrawnText) => drawn.width <= layer.box.width && drawn.height <= layer.box.height;

/** The largest size in [low, high] whose drawing fits, given that `low` is known to fit or is the floor. */
const largestFitting = async (layer: TextLayer, text: string, low: number, high: number, atLow: DrawnText): Promise<DrawnText> => {
  let best = atLow;
  while (low < high) {
    const middle = Math.ceil((low + high) / 2);
    const drawn = await draw(layer, text, middle);
    if (fits(layer, drawn)) [low, best] = [middle, drawn];
    else high = middle - 1;
  }
  return best;
};

/** The most words of `text`, then an ellipsis, that fit at minSize; a lone ellipsis if none do. */
const ellipsised = async (layer: TextLayer, text: string): Promise<DrawnText> => {
  const words = text.split(/(?<=\s)/u);
  let low = 0;
  let high = words.length - 1;
  let best = await draw(layer, ELLIPSIS, layer.minSize);
  while (low < high) {
    const middle = Math.ceil((low + high) / 2);
    const drawn = await draw(layer, `${words.slice(0, middle).join("").trimEnd()}${ELLIPSIS}`, layer.minSize);
    if (fits(layer, drawn)) [low, best] = [middle, drawn];
    else high = middle - 1;
  }
  return best;
};

/** Control characters other than tab and line feed: Pango's markup refuses NUL, and none of them draws. */
const isControl = (character: string) => {
  const code = character.codePointAt(0) ?? 0;
  return (code < 0x20 && character !== "\t" && character !== "\n") || code === 0x7f;
};

/** The layer's text drawn to fit its box; an empty text draws nothing (undefined). */
export const drawTextLayer = async (layer: TextLayer, text: string): Promise<DrawnText | undefined> => {
  const content = [...text]
    .filter((character) => !isControl(character))
    .join("")
    .trim();
  if (content === "") return undefined;
  const largest = await draw(layer, content, layer.maxSize);
  if (fits(layer, largest)) return largest;
  const smallest = await draw(layer, content, layer.minSize);
  if (!fits(layer, smallest)) return clipped(layer, await ellipsised(layer, content));
  return largestFitting(layer, content, layer.minSize, layer.maxSize - 1, smallest);
};

/** A box too small for even an ellipsis at minSize gets what of it fits: nothing is drawn outside a box. */
const clipped = async (layer: TextLayer, drawn: DrawnText): Promise<DrawnText> => {
  if (fits(layer, drawn)) return drawn;
  const width = Math.min(drawn.width, layer.box.width);
  const height = Math.min(drawn.height, layer.box.height);
  const png = await sharp(drawn.png).extract({ left: 0, top: 0, width, height }).png().toBuffer();
  return { png, width, height, size: drawn.size };
};
