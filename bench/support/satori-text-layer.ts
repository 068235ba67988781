import { Resvg } from "@resvg/resvg-js";
import satori from "satori";
import type { TextLayer } from "../../src/domain/account-templates/account-template-design.ts";

/**
 * A text layer drawn by satori (layout to SVG paths, HarfBuzz shaping) and resvg (SVG to pixels),
 * with the same policy as the service's Pango drawing (src/adapters/image/sharp-text-layer.ts):
 * the largest whole size from maxSize down to minSize whose lines fit the box, found by halving;
 * at minSize the most words that fit, then an ellipsis. A trial is a satori layout alone (its SVG
 * says the height the lines take at the box's width); the one kept is rasterised once by resvg.
 * Everything here runs on the calling thread: satori and resvg-js's render are synchronous.
 */
export type SatoriFonts = Parameters<typeof satori>[1]["fonts"];

export interface SatoriText {
  readonly png: Buffer;
  readonly width: number;
  readonly height: number;
  readonly size: number;
}

const ELLIPSIS = "…";
const RIGHT_TO_LEFT = /[\p{Script=Arabic}\p{Script=Hebrew}]/u;

const element = (layer: TextLayer, text: string, size: number) => ({
  type: "div",
  key: null,
  props: {
    style: {
      display: "flex",
      width: layer.box.width,
      fontFamily: layer.font,
      fontWeight: layer.weight ?? 400,
      fontSize: size,
      lineHeight: layer.lineHeight ?? 1.2,
      color: layer.color.slice(0, 7),
      // Lines start at the right for right-to-left text; textAlign is what the eye sees either way.
      direction: RIGHT_TO_LEFT.test(text.match(/\p{L}/u)?.[0] ?? "") ? "rtl" : "ltr",
      textAlign: layer.align ?? "left",
      wordBreak: "break-word",
    },
    children: text,
  },
});

interface Laid {
  readonly svg: string;
  readonly height: number;
  readonly size: number;
}

const layout = async (layer: TextLayer, text: string, size: number, fonts: SatoriFonts): Promise<Laid> => {
  const svg = await satori(element(layer, text, size) as never, { width: layer.box.width, fonts });
  return { svg, height: Number(/height="(\d+(?:\.\d+)?)"/.exec(svg)?.[1] ?? Infinity), size };
};

const fits = (layer: TextLayer, laid: Laid) => laid.height <= layer.box.height;

const largestFitting = async (layer: TextLayer, text: string, low: number, high: number, atLow: Laid, fonts: SatoriFonts) => {
  let best = atLow;
  while (low < high) {
    const middle = Math.ceil((low + high) / 2);
    const laid = await layout(layer, text, middle, fonts);
    if (fits(layer, laid)) [low, best] = [middle, laid];
    else high = middle - 1;
  }
  return best;
};

const ellipsised = async (layer: TextLayer, text: string, fonts: SatoriFonts) => {
  const words = text.split(/(?<=\s)/u);
  let low = 0;
  let high = words.length - 1;
  let best = await layout(layer, ELLIPSIS, layer.minSize, fonts);
  while (low < high) {
    const middle = Math.ceil((low + high) / 2);
    const laid = await layout(layer, `${words.slice(0, middle).join("").trimEnd()}${ELLIPSIS}`, layer.minSize, fonts);
    if (fits(layer, laid)) [low, best] = [middle, laid];
    else high = middle - 1;
  }
  return best;
};

const rasterised = ({ svg, size }: Laid): SatoriText => {
  // satori writes glyphs as paths: resvg needs no fonts, and scanning the system's (its default) costs ~25 ms a drawing.
  const image = new Resvg(svg, { font: { loadSystemFonts: false } }).render();
  return { png: image.asPng(), width: image.width, height: image.height, size };
};

/** One layout at `size` and its pixels: what one Pango drawing at one size is on the other side. */
export const satoriAtSize = async (layer: TextLayer, text: string, size: number, fonts: SatoriFonts) => rasterised(await layout(layer, text, size, fonts));

/** The layer's text drawn to fit its box, as the service's policy fits it. */
export const satoriTextLayer = async (layer: TextLayer, text: string, fonts: SatoriFonts): Promise<SatoriText> => {
  const largest = await layout(layer, text, layer.maxSize, fonts);
  if (fits(layer, largest)) return rasterised(largest);
  const smallest = await layout(layer, text, layer.minSize, fonts);
  if (!fits(layer, smallest)) return rasterised(await ellipsised(layer, text, fonts));
  return rasterised(await largestFitting(layer, text, layer.minSize, layer.maxSize - 1, smallest, fonts));
};
