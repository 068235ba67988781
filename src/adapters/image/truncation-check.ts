import type { ImageFormat } from "../../ports/engines/image.ts";

/**
 * Finds cut-off uploads from the file structure alone, in microseconds, without decoding pixels:
 * a JPEG must reach its end-of-image marker after the scan starts, a PNG its IEND chunk, a WebP
 * the length its RIFF header declares. Damage inside the pixel data of any format is left to the
 * engine, which decodes with `failOn: "error"` and reports it as InvalidImage.
 */
export const looksTruncated = (bytes: Uint8Array, format: ImageFormat): boolean => {
  const buffer = Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  switch (format) {
    case "jpeg": {
      const scanStart = jpegScanStart(buffer);
      return scanStart < 0 || buffer.lastIndexOf(JPEG_EOI) < scanStart;
    }
    case "png":
      return buffer.lastIndexOf(PNG_IEND) < 0;
    case "webp":
      return buffer.length < 12 || buffer.readUInt32LE(4) + 8 > buffer.length;
    case "gif":
    case "tiff":
    case "avif":
      return false;
  }
};

const JPEG_EOI = Buffer.from([0xff, 0xd9]);
/** The IEND chunk type and its fixed CRC. */
const PNG_IEND = Buffer.from([0x49, 0x45, 0x4e, 0x44, 0xae, 0x42, 0x60, 0x82]);

/** Offset of the first start-of-scan marker, walking the marker segments; -1 if the header is cut short. */
const jpegScanStart = (buffer: Buffer): number => {
  let at = 2;
  while (at + 4 <= buffer.length) {
    if (buffer[at] !== 0xff) return -1;
    const marker = buffer[at + 1] ?? 0;
    if (marker === 0xff) {
      at += 1; // fill byte
    } else if (marker === 0xda) {
      return at;
    } else if (marker === 0x01 || marker === 0xd8 || (marker >= 0xd0 && marker <= 0xd7)) {
      at += 2; // markers without a length
    } else {
      at += 2 + buffer.readUInt16BE(at + 2);
    }
  }
  return -1;
};
