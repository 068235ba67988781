import sharp from "sharp";

/** Small real images for API tests, made on the fly (no binary fixtures in the repo). */
export const pngBase64 = async (width = 96, height = 64): Promise<string> => {
  const channels = 3;
  const pixels = Buffer.alloc(width * height * channels);
  for (let y = 0; y < height; y++) {
    for (let x = 0; x < width; x++) {
      const i = (y * width + x) * channels;
      pixels[i] = (x * 255) / width;
      pixels[i + 1] = (y * 255) / height;
      pixels[i + 2] = 128;
    }
  }
  const png = await sharp(pixels, { raw: { width, height, channels } }).png().toBuffer();
  return png.toString("base64");
};
