import { checkRasterSize, type HeaderReading, type Raster } from "./raster.ts";

/**
 * Netpbm images: PBM (P1 text, P4 binary bits), PGM (P2, P5) and PPM (P3, P6), 8 or 16 bits per
 * sample. The header is a few whitespace-separated numbers with `#` comments; it is read within
 * its first `maxHeaderBytes` and every field is bounded before anything is allocated.
 */
export interface PnmHeader {
  readonly kind: "pbm" | "pgm" | "ppm";
  readonly binary: boolean;
  readonly width: number;
  readonly height: number;
  /** Largest sample value (1 for PBM). */
  readonly maxval: number;
  /** Offset of the first pixel byte (binary) or sample token (text). */
  readonly dataOffset: number;
}

const maxHeaderBytes = 4096;
/** Header numbers have at most this many digits: a width of 10^9 is refused before it is parsed. */
const maxDigits = 9;

const isSpace = (byte: number | undefined) => byte === 0x20 || byte === 0x09 || byte === 0x0a || byte === 0x0d || byte === 0x0b || byte === 0x0c;
const isDigit = (byte: number | undefined) => byte !== undefined && byte >= 0x30 && byte <= 0x39;

/** True when the bytes start like a Netpbm image this reader knows (P1-P6 and a separator). */
export const looksLikePnm = (bytes: Uint8Array): boolean =>
  bytes.length >= 3 && bytes[0] === 0x50 && (bytes[1] ?? 0) >= 0x31 && (bytes[1] ?? 0) <= 0x36 && (isSpace(bytes[2]) || bytes[2] === 0x23);

const KINDS = { 1: "pbm", 2: "pgm", 3: "ppm", 4: "pbm", 5: "pgm", 6: "ppm" } as const;

/** A cursor over the header's whitespace, comments and numbers, never past `limit`. */
const headerCursor = (bytes: Uint8Array, start: number, limit: number) => {
  let at = start;
  const skipSpaceAndComments = () => {
    while (at < limit) {
      if (isSpace(bytes[at])) at++;
      else if (bytes[at] === 0x23) while (at < limit && bytes[at] !== 0x0a && bytes[at] !== 0x0d) at++;
      else return;
    }
  };
  return {
    number: (): number | undefined => {
      skipSpaceAndComments();
      let value = 0;
      let digits = 0;
      while (at < limit && isDigit(bytes[at])) {
        if (++digits > maxDigits) return undefined;
        value = value * 10 + (bytes[at++]! - 0x30);
      }
      return digits === 0 ? undefined : value;
    },
    /** One digit: plain PBM may run its 0s and 1s together, each a pixel. */
    digit: (): number | undefined => {
      skipSpaceAndComments();
      return at < limit && isDigit(bytes[at]) ? bytes[at++]! - 0x30 : undefined;
    },
    get at() {
      return at;
    },
  };
};

export const readPnmHeader = (bytes: Uint8Array, maxPixels: number): HeaderReading<PnmHeader> => {
  if (!looksLikePnm(bytes)) return { ok: false, message: "not a PBM, PGM or PPM image" };
  const magic = (bytes[1]! - 0x30) as keyof typeof KINDS;
  const kind = KINDS[magic];
  const binary = magic >= 4;
  const name = kind.toUpperCase();
  const cursor = headerCursor(bytes, 2, Math.min(bytes.length, maxHeaderBytes));
  const width = cursor.number();
  const height = cursor.number();
  const maxval = kind === "pbm" ? 1 : cursor.number();
  if (width === undefined || height === undefined || maxval === undefined) {
    return {
      ok: false,
      message: `the ${name} header is incomplete or malformed (width, height${kind === "pbm" ? "" : ", maxval"} within ${maxHeaderBytes} bytes)`,
    };
  }
  const sizeProblem = checkRasterSize(name, width, height, maxPixels);
  if (sizeProblem !== undefined) return { ok: false, message: sizeProblem };
  if (maxval < 1 || maxval > 65535) return { ok: false, message: `the ${name} maxval is ${maxval}; it must be 1 to 65535` };
  // Exactly one whitespace byte separates the header from binary pixels.
  if (!isSpace(bytes[cursor.at])) return { ok: false, message: `the ${name} header does not end with whitespace` };
  const dataOffset = cursor.at + 1;
  if (binary) {
    const bytesPerSample = maxval > 255 ? 2 : 1;
    const rowBytes = kind === "pbm" ? Math.ceil(width / 8) : width * (kind === "ppm" ? 3 : 1) * bytesPerSample;
    if (bytes.length < dataOffset + rowBytes * height) return { ok: false, message: `the ${name} image is truncated: its pixels are incomplete` };
  }
  return { ok: true, header: { kind, binary, width, height, maxval, dataOffset } };
};

/** Per-pixel: run it off the event loop. Throws on text pixels that are malformed or too few. */
export const decodePnmPixels = (bytes: Uint8Array, header: PnmHeader): Raster<1 | 3> => {
  const { kind, width, height, maxval, dataOffset } = header;
  const channels = kind === "ppm" ? 3 : 1;
  const samples = width * height * channels;
  const pixels = new Uint8Array(samples);
  // PBM: 1 is black. PGM/PPM: scaled from 0..maxval to 0..255.
  const scale = (value: number) => (kind === "pbm" ? (value === 0 ? 255 : 0) : Math.round((Math.min(value, maxval) * 255) / maxval));
  if (!header.binary) {
    const cursor = headerCursor(bytes, dataOffset, bytes.length);
    for (let i = 0; i < samples; i++) {
      const value = kind === "pbm" ? cursor.digit() : cursor.number();
      if (value === undefined || (kind === "pbm" && value > 1)) throw new Error(`the ${kind.toUpperCase()} image has fewer pixels than its header declares`);
      pixels[i] = scale(value);
    }
    return { width, height, channels, data: pixels };
  }
  if (kind === "pbm") {
    const rowBytes = Math.ceil(width / 8);
    for (let y = 0; y < height; y++) {
      for (let x = 0; x < width; x++) {
        const bit = (bytes[dataOffset + y * rowBytes + (x >> 3)]! >> (7 - (x & 7))) & 1;
        pixels[y * width + x] = bit === 1 ? 0 : 255;
      }
    }
    return { width, height, channels, data: pixels };
  }
  if (maxval > 255) {
    for (let i = 0; i < samples; i++) pixels[i] = scale((bytes[dataOffset + 2 * i]! << 8) | bytes[dataOffset + 2 * i + 1]!);
  } else if (maxval === 255) {
    pixels.set(bytes.subarray(dataOffset, dataOffset + samples));
  } else {
    for (let i = 0; i < samples; i++) pixels[i] = scale(bytes[dataOffset + i]!);
  }
  return { width, height, channels, data: pixels };
};
