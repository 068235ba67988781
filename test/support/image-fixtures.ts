import { deflateSync } from "node:zlib";
import sharp from "sharp";

/**
 * Test images drawn on the spot, so that every property a test checks is known by construction
 * and no binary fixture needs a licence.
 */

/** A photo-like scene: a diagonal colour gradient with hard-edged shapes (texture for sharpen/blur checks). */
export const sceneSvg = (width: number, height: number): string => `
<svg xmlns="http://www.w3.org/2000/svg" width="${width}" height="${height}">
  <defs><linearGradient id="g" x1="0" y1="0" x2="1" y2="1">
    <stop offset="0" stop-color="#3a6ea5"/><stop offset="0.5" stop-color="#c0a060"/><stop offset="1" stop-color="#a03030"/>
  </linearGradient></defs>
  <rect width="100%" height="100%" fill="url(#g)"/>
  <circle cx="${width * 0.3}" cy="${height * 0.4}" r="${Math.min(width, height) * 0.18}" fill="#f0e030"/>
  <rect x="${width * 0.55}" y="${height * 0.2}" width="${width * 0.3}" height="${height * 0.5}" fill="#208040"/>
  ${Array.from({ length: 12 }, (_, i) => `<line x1="0" y1="${(height * i) / 12}" x2="${width}" y2="${(height * (i + 3)) / 12}" stroke="#ffffff" stroke-width="${1 + (i % 3)}"/>`).join("")}
</svg>`;

/** The subject of the portrait fixture: a head and shoulders centred here, as fractions of the size. */
export const PORTRAIT_SUBJECT = { cx: 0.7, cy: 0.45, rx: 0.16, ry: 0.36 } as const;

/** A person-like figure on a busy background, off-centre to the right so that crops must find it. */
export const portraitSvg = (width: number, height: number): string => {
  const { cx, cy, rx, ry } = PORTRAIT_SUBJECT;
  const x = width * cx;
  const y = height * cy;
  return `
<svg xmlns="http://www.w3.org/2000/svg" width="${width}" height="${height}">
  <rect width="100%" height="100%" fill="#6a8a9a"/>
  ${Array.from({ length: 8 }, (_, i) => `<rect x="${(width * i) / 8}" y="0" width="${width / 16}" height="${height}" fill="#7a9aaa"/>`).join("")}
  <ellipse cx="${x}" cy="${y + height * ry * 0.45}" rx="${width * rx}" ry="${height * ry * 0.55}" fill="#b03020"/>
  <ellipse cx="${x}" cy="${y - height * ry * 0.45}" rx="${width * rx * 0.55}" ry="${height * ry * 0.4}" fill="#e8b890"/>
  <circle cx="${x - width * rx * 0.2}" cy="${y - height * ry * 0.5}" r="${width * 0.012}" fill="#202020"/>
  <circle cx="${x + width * rx * 0.2}" cy="${y - height * ry * 0.5}" r="${width * 0.012}" fill="#202020"/>
</svg>`;
};

const render = (svg: string) => sharp(Buffer.from(svg));

export const photoJpeg = (width = 1200, height = 800) => render(sceneSvg(width, height)).jpeg({ quality: 90 }).toBuffer();
export const photoPng = (width = 600, height = 400) => render(sceneSvg(width, height)).png().toBuffer();
export const photoWebp = (width = 600, height = 400) => render(sceneSvg(width, height)).webp().toBuffer();
export const photoAvif = (width = 300, height = 200) => render(sceneSvg(width, height)).avif({ effort: 0 }).toBuffer();
export const photoTiff = (width = 600, height = 400) => render(sceneSvg(width, height)).tiff().toBuffer();
export const portraitJpeg = (width = 1200, height = 800) => render(portraitSvg(width, height)).jpeg({ quality: 90 }).toBuffer();

export const cmykJpeg = (width = 600, height = 400) => render(sceneSvg(width, height)).toColourspace("cmyk").jpeg({ quality: 90 }).toBuffer();

export const sixteenBitPng = (width = 600, height = 400) => render(sceneSvg(width, height)).toColourspace("rgb16").png().toBuffer();

export const palettePng = (width = 600, height = 400) => render(sceneSvg(width, height)).png({ palette: true, colours: 64 }).toBuffer();

/** The scene with a transparent band across the top quarter. */
export const alphaPng = async (width = 600, height = 400) => {
  const mask = Buffer.from(
    `<svg xmlns="http://www.w3.org/2000/svg" width="${width}" height="${height}"><rect y="${height / 4}" width="${width}" height="${height * 0.75}" fill="#fff"/></svg>`,
  );
  return render(sceneSvg(width, height))
    .ensureAlpha()
    .composite([{ input: mask, blend: "dest-in" }])
    .png()
    .toBuffer();
};

/** Three frames: red, green, blue. The first frame (red) is what the service must use. */
export const animatedGif = async (width = 200, height = 150) => {
  const colours = [
    [220, 30, 30],
    [30, 200, 30],
    [30, 30, 220],
  ] as const;
  const frame = width * height * 3;
  const pixels = Buffer.alloc(frame * colours.length);
  colours.forEach(([r, g, b], f) => {
    for (let i = 0; i < width * height; i++) pixels.set([r, g, b], f * frame + i * 3);
  });
  return sharp(pixels, { raw: { width, height: height * colours.length, channels: 3, pageHeight: height } })
    .gif({ delay: [100, 100, 100], loop: 0 })
    .toBuffer();
};

/**
 * Stored landscape (width > height) with EXIF orientation 6 (rotate 90° clockwise to display),
 * so it displays as portrait. The left column is red as stored, which displays as the top row.
 */
export const exifRotatedJpeg = async (storedWidth = 800, storedHeight = 500) => {
  const svg = `<svg xmlns="http://www.w3.org/2000/svg" width="${storedWidth}" height="${storedHeight}">
    <rect width="100%" height="100%" fill="#4070c0"/><rect width="${storedWidth / 8}" height="100%" fill="#e02020"/></svg>`;
  return render(svg).jpeg({ quality: 90 }).withMetadata({ orientation: 6 }).toBuffer();
};

/**
 * A decompression bomb: a huge PNG of one colour, tiny on disk. Written by hand (1-bit greyscale,
 * one deflate stream of zeros) because an encoder would need the gigapixel frame in memory first.
 */
export const pngBomb = (width = 30_000, height = 30_000): Buffer => {
  const crcTable = Array.from({ length: 256 }, (_, n) => {
    let c = n;
    for (let k = 0; k < 8; k++) c = c & 1 ? 0xedb88320 ^ (c >>> 1) : c >>> 1;
    return c >>> 0;
  });
  const crc32 = (data: Buffer) => {
    let c = 0xffffffff;
    for (const byte of data) c = (crcTable[(c ^ byte) & 0xff] ?? 0) ^ (c >>> 8);
    return (c ^ 0xffffffff) >>> 0;
  };
  const chunk = (type: string, data: Buffer) => {
    const body = Buffer.concat([Buffer.from(type, "ascii"), data]);
    const length = Buffer.alloc(4);
    length.writeUInt32BE(data.length);
    const crc = Buffer.alloc(4);
    crc.writeUInt32BE(crc32(body));
    return Buffer.concat([length, body, crc]);
  };
  const header = Buffer.alloc(13);
  header.writeUInt32BE(width, 0);
  header.writeUInt32BE(height, 4);
  header.set([1, 0, 0, 0, 0], 8); // bit depth 1, greyscale, deflate, no filter, no interlace
  const rows = Buffer.alloc((Math.ceil(width / 8) + 1) * height);
  return Buffer.concat([
    Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]),
    chunk("IHDR", header),
    chunk("IDAT", deflateSync(rows, { level: 9 })),
    chunk("IEND", Buffer.alloc(0)),
  ]);
};

/** The scene squeezed into mid-tones: what auto-level and local contrast should open up. */
export const dullJpeg = (width = 800, height = 600) => render(sceneSvg(width, height)).linear(0.45, 70).jpeg({ quality: 92 }).toBuffer();

/** The scene with strong grain: what the denoiser should calm down. */
export const noisyPng = async (width = 800, height = 600) => {
  const noise = await sharp({ create: { width, height, channels: 3, background: "#808080", noise: { type: "gaussian", mean: 128, sigma: 40 } } })
    .png()
    .toBuffer();
  return render(sceneSvg(width, height))
    .composite([{ input: noise, blend: "overlay" }])
    .png()
    .toBuffer();
};

/** A photo-like JPEG (gradient, shapes, grain): at 3000×2000 about 2.3 MB, as a phone's photo is; the benchmarks' request image. */
export const grainyPhotoJpeg = async (width = 3000, height = 2000): Promise<Buffer> => {
  const scene = Buffer.from(`<svg xmlns="http://www.w3.org/2000/svg" width="${width}" height="${height}">
    <defs><linearGradient id="g" x1="0" y1="0" x2="1" y2="1"><stop offset="0" stop-color="#3a6ea5"/>
    <stop offset="0.5" stop-color="#c0a060"/><stop offset="1" stop-color="#a03030"/></linearGradient></defs>
    <rect width="100%" height="100%" fill="url(#g)"/>
    <circle cx="${width * 0.65}" cy="${height * 0.4}" r="${height * 0.2}" fill="#e8b890"/>
    <rect x="${width * 0.1}" y="${height * 0.55}" width="${width * 0.3}" height="${height * 0.35}" fill="#208040"/></svg>`);
  const grain = await sharp({ create: { width, height, channels: 3, background: "#808080", noise: { type: "gaussian", mean: 128, sigma: 18 } } })
    .png()
    .toBuffer();
  return sharp(scene)
    .composite([{ input: grain, blend: "overlay" }])
    .jpeg({ quality: 90 })
    .toBuffer();
};
