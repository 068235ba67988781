import sharp from "sharp";

/** Decoded output as RGBA, for tests that measure what a step did. */
export interface Pixels {
  readonly width: number;
  readonly height: number;
  readonly data: Buffer;
}

export const decodeRgba = async (bytes: Uint8Array): Promise<Pixels> => {
  const { data, info } = await sharp(bytes).toColourspace("srgb").ensureAlpha().raw().toBuffer({ resolveWithObject: true });
  return { width: info.width, height: info.height, data };
};

export const pixelAt = ({ width, data }: Pixels, x: number, y: number): readonly [number, number, number, number] => {
  const i = (Math.round(y) * width + Math.round(x)) * 4;
  return [data[i] ?? 0, data[i + 1] ?? 0, data[i + 2] ?? 0, data[i + 3] ?? 0];
};

/** Mean R, G, B, A over a rectangle given in fractions of the size (whole image by default). */
export const meanRgba = (pixels: Pixels, box = { x0: 0, y0: 0, x1: 1, y1: 1 }): readonly [number, number, number, number] => {
  const sum = [0, 0, 0, 0];
  let n = 0;
  for (let y = Math.floor(box.y0 * pixels.height); y < Math.ceil(box.y1 * pixels.height); y++) {
    for (let x = Math.floor(box.x0 * pixels.width); x < Math.ceil(box.x1 * pixels.width); x++) {
      pixelAt(pixels, x, y).forEach((v, c) => (sum[c] = (sum[c] ?? 0) + v));
      n++;
    }
  }
  return [0, 1, 2, 3].map((c) => (sum[c] ?? 0) / n) as unknown as readonly [number, number, number, number];
};

/** Largest difference between the colour channels of any opaque pixel: 0 for a grey image. */
export const maxChannelSpread = ({ data }: Pixels): number => {
  let spread = 0;
  for (let i = 0; i < data.length; i += 4) {
    if ((data[i + 3] ?? 0) === 0) continue;
    const r = data[i] ?? 0,
      g = data[i + 1] ?? 0,
      b = data[i + 2] ?? 0;
    spread = Math.max(spread, Math.max(r, g, b) - Math.min(r, g, b));
  }
  return spread;
};

/** Variance of the 4-neighbour Laplacian of luminance: rises with sharpening, falls with blur and denoising. */
export const laplacianVariance = (pixels: Pixels): number => {
  const { width, height, data } = pixels;
  const l = (x: number, y: number) => {
    const i = (y * width + x) * 4;
    return luma(data[i] ?? 0, data[i + 1] ?? 0, data[i + 2] ?? 0);
  };
  let sum = 0;
  let sumSq = 0;
  let n = 0;
  for (let y = 1; y < height - 1; y++) {
    for (let x = 1; x < width - 1; x++) {
      const v = l(x - 1, y) + l(x + 1, y) + l(x, y - 1) + l(x, y + 1) - 4 * l(x, y);
      sum += v;
      sumSq += v * v;
      n++;
    }
  }
  return sumSq / n - (sum / n) ** 2;
};

const luma = (r: number, g: number, b: number) => 0.2126 * r + 0.7152 * g + 0.0722 * b;

/** Luminance of every opaque pixel, sorted. */
const lumas = ({ data }: Pixels): Array<number> => {
  const values: Array<number> = [];
  for (let i = 0; i < data.length; i += 4) {
    if ((data[i + 3] ?? 0) > 0) values.push(luma(data[i] ?? 0, data[i + 1] ?? 0, data[i + 2] ?? 0));
  }
  return values.sort((a, b) => a - b);
};

export const lumaStats = (pixels: Pixels) => {
  const values = lumas(pixels);
  const mean = values.reduce((s, v) => s + v, 0) / values.length;
  const std = Math.sqrt(values.reduce((s, v) => s + (v - mean) ** 2, 0) / values.length);
  const percentile = (p: number) => values[Math.min(values.length - 1, Math.floor((p / 100) * values.length))] ?? 0;
  return { mean, std, p1: percentile(1), p99: percentile(99) };
};

/** Mean HSV saturation (0..1) of the opaque pixels. */
export const meanSaturation = ({ data }: Pixels): number => {
  let sum = 0;
  let n = 0;
  for (let i = 0; i < data.length; i += 4) {
    if ((data[i + 3] ?? 0) === 0) continue;
    const max = Math.max(data[i] ?? 0, data[i + 1] ?? 0, data[i + 2] ?? 0);
    const min = Math.min(data[i] ?? 0, data[i + 1] ?? 0, data[i + 2] ?? 0);
    sum += max === 0 ? 0 : (max - min) / max;
    n++;
  }
  return sum / n;
};

/** Mean luminance of the four corner patches (10% of each side) over that of the centre patch. */
export const cornerToCentreLuma = (pixels: Pixels): number => {
  const l = (box: { x0: number; y0: number; x1: number; y1: number }) => {
    const [r, g, b] = meanRgba(pixels, box);
    return luma(r, g, b);
  };
  const corners = [
    l({ x0: 0, y0: 0, x1: 0.1, y1: 0.1 }),
    l({ x0: 0.9, y0: 0, x1: 1, y1: 0.1 }),
    l({ x0: 0, y0: 0.9, x1: 0.1, y1: 1 }),
    l({ x0: 0.9, y0: 0.9, x1: 1, y1: 1 }),
  ];
  return corners.reduce((s, v) => s + v, 0) / 4 / l({ x0: 0.45, y0: 0.45, x1: 0.55, y1: 0.55 });
};

/** Share of opaque pixels within `tolerance` of `rgb` on every channel. */
export const shareNear = ({ data }: Pixels, rgb: readonly [number, number, number], tolerance: number): number => {
  let hits = 0;
  let n = 0;
  for (let i = 0; i < data.length; i += 4) {
    if ((data[i + 3] ?? 0) === 0) continue;
    n++;
    if (rgb.every((v, c) => Math.abs((data[i + c] ?? 0) - v) <= tolerance)) hits++;
  }
  return n === 0 ? 0 : hits / n;
};

/** Mean absolute difference per channel between two images of the same size. */
export const meanAbsDiff = (a: Pixels, b: Pixels): number => {
  let sum = 0;
  for (let i = 0; i < a.data.length; i++) if (i % 4 !== 3) sum += Math.abs((a.data[i] ?? 0) - (b.data[i] ?? 0));
  return sum / ((a.data.length / 4) * 3);
};

/** The pixels of a rectangle (in pixels), as an image of its own. */
export const crop = (pixels: Pixels, left: number, top: number, width: number, height: number): Pixels => {
  const data = Buffer.alloc(width * height * 4);
  for (let y = 0; y < height; y++) {
    pixels.data.copy(data, y * width * 4, ((top + y) * pixels.width + left) * 4, ((top + y) * pixels.width + left + width) * 4);
  }
  return { width, height, data };
};
