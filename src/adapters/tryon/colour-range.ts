import type { RawImage } from "../image/raw-decoding.ts";

/**
 * A colour range read off a part of the photo that is surely one thing (the hair above the
 * shoulders, the middle of the face), to tell that thing elsewhere: each feature between two
 * percentiles of the samples, widened by SLACK levels, then fading to nothing over as many. The
 * features are R, G, B and the chroma differences R-G and R-B: per channel alone, the broad range
 * of a face (from its shadows to its highlights) holds a white or grey blouse too, whose R-B is
 * near 0 where skin's is 40-100.
 */
export type ColourRange = ReadonlyArray<readonly [number, number]>;

const SLACK = 12;
const MIN_SAMPLES = 64;
/** At most about this many cells are read (every n-th of the grid): percentiles need no more. */
const MAX_SAMPLES = 16384;

const FEATURES = 5;

/** A feature (0-4: R, G, B, R-G, R-B) of a grid cell (e.g. of a segmentation map), from the image under its centre. */
export type GridColour = (i: number, feature: number) => number;

export const gridColour = (image: RawImage, grid: { readonly width: number; readonly height: number }): GridColour => {
  const sx = image.width / grid.width;
  const sy = image.height / grid.height;
  return (i, feature) => {
    const x = Math.min(image.width - 1, Math.floor(((i % grid.width) + 0.5) * sx));
    const y = Math.min(image.height - 1, Math.floor((Math.floor(i / grid.width) + 0.5) * sy));
    const at = (y * image.width + x) * image.channels;
    return feature < 3 ? image.data[at + feature]! : image.data[at]! - image.data[at + feature - 2]!;
  };
};

/** The range of the cells `sample` picks, or undefined when fewer than MIN_SAMPLES are picked. */
export const colourRange = (
  cells: number,
  colour: GridColour,
  sample: (i: number) => boolean,
  percentiles: readonly [number, number],
): ColourRange | undefined => colourSamples(cells, colour, sample)?.range(percentiles);

/** The colours of the cells `sample` picks, read once: their range, their median; undefined when fewer than MIN_SAMPLES are picked. */
export const colourSamples = (cells: number, colour: GridColour, sample: (i: number) => boolean) => {
  const channels: Array<Array<number>> = Array.from({ length: FEATURES }, () => []);
  const stride = Math.max(1, Math.floor(cells / MAX_SAMPLES));
  for (let i = 0; i < cells; i += stride) if (sample(i)) for (let c = 0; c < FEATURES; c++) channels[c]!.push(colour(i, c));
  if (channels[0]!.length < MIN_SAMPLES) return undefined;
  for (const values of channels) values.sort((a, b) => a - b);
  const at = (feature: number, q: number) => {
    const values = channels[feature]!;
    return values[Math.min(values.length - 1, Math.floor(q * values.length))]!;
  };
  return {
    range: (percentiles: readonly [number, number]): ColourRange =>
      Array.from({ length: FEATURES }, (_, c) => [at(c, percentiles[0]) - SLACK, at(c, percentiles[1]) + SLACK] as const),
    /** The typical colour: the median of each of R, G and B. */
    median: (): readonly [number, number, number] => [at(0, 0.5), at(1, 0.5), at(2, 0.5)],
  };
};

/** How well a cell's colour fits the range: 1 within it, down to 0 at SLACK levels outside. */
export const withinRange = (range: ColourRange, colour: GridColour, i: number): number => rgbWithinRange(range, colour(i, 0), colour(i, 1), colour(i, 2));

/** The same for a colour given as R, G, B. */
export const rgbWithinRange = (range: ColourRange, r: number, g: number, b: number): number => {
  let fit = 1;
  for (let c = 0; c < FEATURES; c++) {
    const v = c === 0 ? r : c === 1 ? g : c === 2 ? b : c === 3 ? r - g : r - b;
    const [low, high] = range[c]!;
    fit = Math.min(fit, 1 - Math.max(low - v, v - high, 0) / SLACK);
  }
  return Math.max(0, fit);
};
