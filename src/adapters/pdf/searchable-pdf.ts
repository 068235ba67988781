import fs from "node:fs";
import { promisify } from "node:util";
import { deflate, deflateSync } from "node:zlib";
import sharp from "sharp";
import type { OcrBlock, OcrWord } from "../../ports/engines/ocr-engine.ts";

/**
 * A searchable PDF of one page, written from any engine's reading: the image as the client sees it
 * (after EXIF orientation), at its size in print, and over it each word of the reading as invisible
 * text (render mode 3) spanning the word's box, so that a viewer selects, searches and copies it
 * where it stands. This is how Tesseract's renderer writes one, and its layout is kept: a Type0 font
 * over the glyphless TrueType Tesseract embeds (`glyphless-font.ttf`, Apache-2.0: one empty glyph
 * 500 units wide for every character), character ids that are the text's UTF-16 code units and a
 * ToUnicode map that reads them back as themselves; a classic cross-reference table, one flat page
 * tree (what classic-pdf.ts reads when a document's pages are joined).
 */
export interface SearchablePage {
  /** The image as the client sent it. */
  readonly image: Uint8Array;
  /** Its resolution for print: its size on the page is its pixels at this many per inch. */
  readonly dpi: number;
  /** The words, in the frame of the image as displayed (after EXIF orientation). */
  readonly blocks: ReadonlyArray<OcrBlock>;
}

const deflated = promisify(deflate);

const glyphlessFont = fs.readFileSync(new URL("./glyphless-font.ttf", import.meta.url));

/** Every character id to the font's one glyph (id 1): 65,536 big-endian pairs, compressed once. */
let cidToGid: Buffer | undefined;
const cidToGidMap = (): Buffer => (cidToGid ??= deflateSync(Buffer.alloc(2 * 65_536, Buffer.from([0, 1]))));

const toUnicode = `/CIDInit /ProcSet findresource begin
12 dict begin
begincmap
/CIDSystemInfo << /Registry (Adobe) /Ordering (UCS) /Supplement 0 >> def
/CMapName /Adobe-Identity-UCS def
/CMapType 2 def
1 begincodespacerange
<0000> <FFFF>
endcodespacerange
1 beginbfrange
<0000> <FFFF> <0000>
endbfrange
endcmap
CMapName currentdict /CMap defineresource pop
end
end
`;

/** The image as the page's XObject: a JPEG that needs no turning as it is, anything else as its pixels, compressed without loss. */
const pageImage = async (bytes: Uint8Array) => {
  const { format, orientation, space, width, height } = await sharp(bytes).metadata();
  if (format === "jpeg" && (orientation ?? 1) === 1 && (space === "srgb" || space === "b-w") && width !== undefined && height !== undefined) {
    return { width, height, colourSpace: space === "b-w" ? "/DeviceGray" : "/DeviceRGB", filter: "/DCTDecode", data: Buffer.from(bytes) };
  }
  const { data, info } = await sharp(bytes)
    .rotate()
    .flatten({ background: "#ffffff" })
    .toColourspace("srgb")
    .removeAlpha()
    .raw({ depth: "uchar" })
    .toBuffer({ resolveWithObject: true });
  return { width: info.width, height: info.height, colourSpace: "/DeviceRGB", filter: "/FlateDecode", data: await deflated(data) };
};

/** A number as PDF writes it: at most two decimals, no exponent. */
const n = (value: number): string => String(Math.round(value * 100) / 100);

const utf16Hex = (text: string): string => {
  let hex = "";
  for (let index = 0; index < text.length; index++) hex += text.charCodeAt(index).toString(16).padStart(4, "0").toUpperCase();
  return hex;
};

/**
 * One word as invisible text: its font size the line's height, stretched (Tz) so that its
 * characters, each half the size wide, span from the word's left edge to the next word's (the
 * space included), or to its own right edge at the end of the line.
 */
const wordText = (word: OcrWord, next: OcrWord | undefined, size: number, toPoints: (px: number) => number, pageHeight: number, baseline: number): string => {
  const text = next === undefined ? word.text : `${word.text} `;
  const span = toPoints((next?.bbox.x0 ?? word.bbox.x1) - word.bbox.x0);
  const stretch = (100 * span) / (text.length * size * 0.5);
  return `1 0 0 1 ${n(toPoints(word.bbox.x0))} ${n(pageHeight - toPoints(baseline))} Tm /F1 ${n(size)} Tf ${n(stretch)} Tz <${utf16Hex(text)}> Tj`;
};

const textLayer = (blocks: ReadonlyArray<OcrBlock>, toPoints: (px: number) => number, pageHeight: number): string => {
  const lines = blocks.flatMap((block) => block.lines).filter((line) => line.words.length > 0);
  const words = lines.flatMap((line) => {
    const size = Math.max(1, toPoints(line.bbox.y1 - line.bbox.y0));
    return line.words.map((word, index) => wordText(word, line.words[index + 1], size, toPoints, pageHeight, line.bbox.y1));
  });
  return words.length === 0 ? "" : `BT\n3 Tr\n${words.join("\n")}\nET\n`;
};

export const searchablePdf = async (page: SearchablePage): Promise<Uint8Array> => {
  const image = await pageImage(page.image);
  const toPoints = (px: number) => (px * 72) / page.dpi;
  const [width, height] = [toPoints(image.width), toPoints(image.height)];
  const content = await deflated(Buffer.from(`q ${n(width)} 0 0 ${n(height)} 0 0 cm /Im1 Do Q\n${textLayer(page.blocks, toPoints, height)}`, "latin1"));
  const stream = (dictionary: string, data: Buffer) => [
    Buffer.from(`<< ${dictionary} /Length ${data.length} >>\nstream\n`, "latin1"),
    data,
    Buffer.from("\nendstream"),
  ];
  const objects: ReadonlyArray<ReadonlyArray<Buffer>> = [
    [Buffer.from("<< /Type /Catalog /Pages 2 0 R >>")],
    [Buffer.from("<< /Type /Pages /Kids [3 0 R] /Count 1 >>")],
    [
      Buffer.from(
        `<< /Type /Page /Parent 2 0 R /MediaBox [0 0 ${n(width)} ${n(height)}] /Contents 4 0 R ` +
          "/Resources << /XObject << /Im1 5 0 R >> /Font << /F1 6 0 R >> /ProcSet [/PDF /Text /ImageB /ImageC] >> >>",
      ),
    ],
    stream("/Filter /FlateDecode", content),
    stream(
      `/Type /XObject /Subtype /Image /Width ${image.width} /Height ${image.height} /ColorSpace ${image.colourSpace} /BitsPerComponent 8 /Filter ${image.filter}`,
      image.data,
    ),
    [Buffer.from("<< /Type /Font /Subtype /Type0 /BaseFont /GlyphLessFont /Encoding /Identity-H /DescendantFonts [7 0 R] /ToUnicode 8 0 R >>")],
    [
      Buffer.from(
        "<< /Type /Font /Subtype /CIDFontType2 /BaseFont /GlyphLessFont /CIDSystemInfo << /Registry (Adobe) /Ordering (Identity) /Supplement 0 >> " +
          "/FontDescriptor 9 0 R /CIDToGIDMap 10 0 R /DW 500 >>",
      ),
    ],
    stream("", Buffer.from(toUnicode, "latin1")),
    [
      Buffer.from(
        "<< /Type /FontDescriptor /FontName /GlyphLessFont /Flags 5 /FontBBox [0 0 500 1000] /ItalicAngle 0 /Ascent 1000 /Descent -1 /CapHeight 1000 /StemV 80 /FontFile2 11 0 R >>",
      ),
    ],
    stream("/Filter /FlateDecode", cidToGidMap()),
    stream(`/Length1 ${glyphlessFont.length}`, glyphlessFont),
  ];
  const parts: Array<Buffer> = [Buffer.from("%PDF-1.5\n%\xDE\xAD\xBE\xEB\n", "latin1")];
  const offsets: Array<number> = [];
  let at = parts[0]!.length;
  objects.forEach((body, index) => {
    offsets.push(at);
    for (const part of [Buffer.from(`${index + 1} 0 obj\n`), ...body, Buffer.from("\nendobj\n")]) {
      parts.push(part);
      at += part.length;
    }
  });
  const xref = ["xref", `0 ${objects.length + 1}`, "0000000000 65535 f ", ...offsets.map((offset) => `${String(offset).padStart(10, "0")} 00000 n `)];
  parts.push(Buffer.from(`${xref.join("\n")}\ntrailer\n<< /Size ${objects.length + 1} /Root 1 0 R >>\nstartxref\n${at}\n%%EOF\n`, "latin1"));
  const whole = Buffer.concat(parts);
  return new Uint8Array(whole.buffer, whole.byteOffset, whole.byteLength);
};
