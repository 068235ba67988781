import { checkRasterSize, type HeaderReading, type Raster } from "./raster.ts";

/**
 * Windows bitmaps as scanners and old software write them: uncompressed 1, 4 and 8 bits with a
 * palette, 16, 24 and 32 bits (plain or with channel masks), bottom-up or top-down, with any of
 * the usual info headers (OS/2 core 12 bytes, 40, 52, 56, V4 108, V5 124). Run-length and
 * embedded JPEG/PNG compression are refused. Every header field is bounded before allocating.
 */
export interface BmpHeader {
  readonly width: number;
  readonly height: number;
  /** Rows are stored bottom row first (a positive height in the file). */
  readonly bottomUp: boolean;
  readonly bitsPerPixel: 1 | 4 | 8 | 16 | 24 | 32;
  readonly dataOffset: number;
  readonly rowBytes: number;
  /** RGB triples for 1, 4 and 8 bits. */
  readonly palette: ReadonlyArray<readonly [number, number, number]>;
  /** Red, green, blue masks for 16 and 32 bits. */
  readonly masks: readonly [number, number, number];
}

const INFO_HEADER_SIZES = [12, 40, 52, 56, 108, 124];
const BI_RGB = 0;
const BI_BITFIELDS = 3;
const BI_ALPHABITFIELDS = 6;
const COMPRESSION_NAMES: Readonly<Record<number, string>> = { 1: "RLE8", 2: "RLE4", 4: "JPEG", 5: "PNG" };

export const looksLikeBmp = (bytes: Uint8Array): boolean => bytes.length >= 2 && bytes[0] === 0x42 && bytes[1] === 0x4d;

const refuse = (message: string): HeaderReading<BmpHeader> => ({ ok: false, message });

export const readBmpHeader = (bytes: Uint8Array, maxPixels: number): HeaderReading<BmpHeader> => {
  if (!looksLikeBmp(bytes) || bytes.length < 26) return refuse("the BMP image is truncated: its header is incomplete");
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  const dataOffset = view.getUint32(10, true);
  const infoSize = view.getUint32(14, true);
  if (!INFO_HEADER_SIZES.includes(infoSize)) return refuse(`the BMP info header has an unknown size (${infoSize} bytes)`);
  if (bytes.length < 14 + infoSize) return refuse("the BMP image is truncated: its header is incomplete");
  const core = infoSize === 12;
  const width = core ? view.getUint16(18, true) : view.getInt32(18, true);
  const rawHeight = core ? view.getUint16(20, true) : view.getInt32(22, true);
  const bitsPerPixel = view.getUint16(core ? 24 : 28, true);
  const compression = core ? BI_RGB : view.getUint32(30, true);
  if (![1, 4, 8, 16, 24, 32].includes(bitsPerPixel)) return refuse(`the BMP image has ${bitsPerPixel} bits per pixel; supported: 1, 4, 8, 16, 24, 32`);
  const named = COMPRESSION_NAMES[compression];
  if (named !== undefined) return refuse(`${named}-compressed BMP images are not supported; send it uncompressed or as PNG`);
  const masked = compression === BI_BITFIELDS || compression === BI_ALPHABITFIELDS;
  if (compression !== BI_RGB && !masked) return refuse(`the BMP compression ${compression} is unknown`);
  if (masked && bitsPerPixel !== 16 && bitsPerPixel !== 32) return refuse("BMP channel masks are valid only with 16 or 32 bits per pixel");
  const height = Math.abs(rawHeight);
  const sizeProblem = checkRasterSize("BMP", width, height, maxPixels);
  if (sizeProblem !== undefined) return refuse(sizeProblem);
  const bits = bitsPerPixel as BmpHeader["bitsPerPixel"];

  let masks: readonly [number, number, number] = bits === 16 ? [0x7c00, 0x03e0, 0x001f] : [0xff0000, 0x00ff00, 0x0000ff];
  // A 40-byte header keeps its masks just after it, the longer ones inside it: at byte 54 either way.
  const masksAt = 54;
  if (masked) {
    if (bytes.length < masksAt + 12) return refuse("the BMP image is truncated: its channel masks are missing");
    masks = [view.getUint32(masksAt, true), view.getUint32(masksAt + 4, true), view.getUint32(masksAt + 8, true)];
    if (masks.some((mask) => mask === 0)) return refuse("the BMP image has an empty channel mask");
  }

  const palette: Array<readonly [number, number, number]> = [];
  if (bits <= 8) {
    const entrySize = core ? 3 : 4;
    const declared = core ? 0 : view.getUint32(46, true);
    const entries = declared === 0 ? 2 ** bits : declared;
    if (entries > 2 ** bits) return refuse(`the BMP palette declares ${entries} colours; ${bits} bits index at most ${2 ** bits}`);
    const paletteAt = 14 + infoSize;
    if (bytes.length < paletteAt + entries * entrySize) return refuse("the BMP image is truncated: its palette is incomplete");
    for (let i = 0; i < entries; i++) {
      const at = paletteAt + i * entrySize;
      palette.push([bytes[at + 2]!, bytes[at + 1]!, bytes[at]!]);
    }
  }

  const rowBytes = Math.floor((bits * width + 31) / 32) * 4;
  if (dataOffset < 14 + infoSize || bytes.length < dataOffset + rowBytes * height) return refuse("the BMP image is truncated: its pixels are incomplete");
  return { ok: true, header: { width, height, bottomUp: rawHeight > 0, bitsPerPixel: bits, dataOffset, rowBytes, palette, masks } };
};

/** Where a mask's channel sits and how to stretch it to 8 bits. */
const channelOf = (mask: number) => {
  let shift = 0;
  while (((mask >>> shift) & 1) === 0) shift++;
  let bits = 0;
  while (((mask >>> (shift + bits)) & 1) === 1 && bits < 32) bits++;
  const max = 2 ** bits - 1;
  return (value: number) => Math.round((((value & mask) >>> shift) * 255) / max);
};

/** Per-pixel: run it off the event loop. Palette indices past the palette read as black. */
export const decodeBmpPixels = (bytes: Uint8Array, header: BmpHeader): Raster<1 | 3> => {
  const { width, height, bitsPerPixel, dataOffset, rowBytes, palette } = header;
  const pixels = new Uint8Array(width * height * 3);
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  const [red, green, blue] = header.masks.map(channelOf) as [(v: number) => number, (v: number) => number, (v: number) => number];
  for (let y = 0; y < height; y++) {
    const row = dataOffset + (header.bottomUp ? height - 1 - y : y) * rowBytes;
    let out = y * width * 3;
    for (let x = 0; x < width; x++, out += 3) {
      if (bitsPerPixel <= 8) {
        const perByte = 8 / bitsPerPixel;
        const byte = bytes[row + Math.floor(x / perByte)]!;
        const index = (byte >> (8 - bitsPerPixel * ((x % perByte) + 1))) & ((1 << bitsPerPixel) - 1);
        const colour = palette[index] ?? [0, 0, 0];
        pixels[out] = colour[0];
        pixels[out + 1] = colour[1];
        pixels[out + 2] = colour[2];
      } else if (bitsPerPixel === 24) {
        pixels[out] = bytes[row + x * 3 + 2]!;
        pixels[out + 1] = bytes[row + x * 3 + 1]!;
        pixels[out + 2] = bytes[row + x * 3]!;
      } else {
        const value = bitsPerPixel === 16 ? view.getUint16(row + x * 2, true) : view.getUint32(row + x * 4, true);
        pixels[out] = red(value);
        pixels[out + 1] = green(value);
        pixels[out + 2] = blue(value);
      }
    }
  }
  return { width, height, channels: 3, data: pixels };
};
