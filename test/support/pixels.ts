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
    const r = data[i] ?? 0, g = data[i + 1] ?? 0, b = data[i + 2] ?? 0;
    spread = Math.max(spread, Math.max(r, g, b) - Math.min(r, g, b));
  }
  return spread;
};

/** Variance of the 4-neighbour Laplacian of luminance: rises with sharpening, falls with blur and denoising. */
export const laplacianVariance = async (bytes: Uint8Array): Promise<number> => {
  const { data, info } = await sharp(bytes).flatten({ background: "#ffffff" }).greyscale().raw().toBuffer({ resolveWithObject: true });
  const { width, height } = info;
  let sum = 0, sumSq = 0, n = 0;
  for (let y = 1; y < height - 1; y++) {
    for (let x = 1; x < width - 1; x++) {
      const i = y * width + x;
      const l = (data[i - 1] ?? 0) + (data[i + 1] ?? 0) + (data[i - width] ?? 0) + (data[i + width] ?? 0) - 4 * (data[i] ?? 0);
      sum += l;
      sumSq += l * l;
      n++;
    }
  }
  return sumSq / n - (sum / n) ** 2;
};
