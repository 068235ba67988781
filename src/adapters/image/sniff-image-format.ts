import type { ImageFormat } from "../../ports/engines/image.ts";

/**
 * What the first bytes say a file is. Decoders are never offered bytes whose signature is not on
 * the allow-list, so a file cannot reach a vector, document or scriptable loader by lying about
 * its type.
 */
export type Sniffed = { readonly accepted: true; readonly format: ImageFormat } | { readonly accepted: false; readonly message: string };

const ACCEPTED = "accepted formats: JPEG, PNG, WebP, AVIF, GIF, TIFF";

const ascii = (bytes: Uint8Array, from: number, to: number): string => String.fromCharCode(...bytes.subarray(from, Math.min(to, bytes.length)));

const startsWith = (bytes: Uint8Array, signature: ReadonlyArray<number>, at = 0): boolean =>
  bytes.length >= at + signature.length && signature.every((b, i) => bytes[at + i] === b);

/** ISO-BMFF `ftyp` brands (major and compatible), which tell AVIF from HEIC and other HEIF kinds. */
const ftypBrands = (bytes: Uint8Array): ReadonlyArray<string> => {
  if (bytes.length < 16 || ascii(bytes, 4, 8) !== "ftyp") return [];
  const boxSize = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength).getUint32(0);
  const end = Math.min(boxSize, bytes.length);
  const brands = [ascii(bytes, 8, 12)];
  for (let at = 16; at + 4 <= end; at += 4) brands.push(ascii(bytes, at, at + 4));
  return brands;
};

const refused = (what: string): Sniffed => ({ accepted: false, message: `${what}; ${ACCEPTED}` });

export const sniffImageFormat = (bytes: Uint8Array): Sniffed => {
  if (bytes.length === 0) return { accepted: false, message: "the image is empty" };
  if (startsWith(bytes, [0xff, 0xd8, 0xff])) return { accepted: true, format: "jpeg" };
  if (startsWith(bytes, [0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a])) return { accepted: true, format: "png" };
  if (ascii(bytes, 0, 6) === "GIF87a" || ascii(bytes, 0, 6) === "GIF89a") return { accepted: true, format: "gif" };
  if (ascii(bytes, 0, 4) === "RIFF" && ascii(bytes, 8, 12) === "WEBP") return { accepted: true, format: "webp" };
  if (startsWith(bytes, [0x49, 0x49, 0x2a, 0x00]) || startsWith(bytes, [0x4d, 0x4d, 0x00, 0x2a])) {
    return { accepted: true, format: "tiff" };
  }
  const brands = ftypBrands(bytes);
  if (brands.includes("avif") || brands.includes("avis")) return { accepted: true, format: "avif" };
  if (brands.length > 0) return refused(`HEIC/HEIF and other ISO media files (brand "${brands[0]}") are not supported`);

  // Name the common refusals, so that a client knows what it sent.
  const head = new TextDecoder("utf-8", { fatal: false })
    .decode(bytes.subarray(0, 512))
    .replace(/^\uFEFF/, "")
    .trimStart();
  if (head.startsWith("<")) return refused("SVG and other XML/HTML documents are not accepted (vector and scriptable formats are refused)");
  if (head.startsWith("%PDF")) return refused("PDF documents are not accepted");
  if (head.startsWith("%!")) return refused("PostScript documents are not accepted");
  if (ascii(bytes, 0, 2) === "BM") return refused("BMP images are not supported");
  if (startsWith(bytes, [0x00, 0x00, 0x00, 0x0c, 0x4a, 0x58, 0x4c, 0x20]) || startsWith(bytes, [0xff, 0x0a])) {
    return refused("JPEG XL images are not supported");
  }
  return refused("not a supported image (unrecognised file signature)");
};
