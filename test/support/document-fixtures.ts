import crypto from "node:crypto";
import zlib from "node:zlib";
import sharp from "sharp";

/**
 * Documents and images in the formats /ocr reads beside the usual ones, made at test time from
 * sharp's own rendering: PDFs (scanned pages as JPEG images, optionally encrypted or carrying
 * JavaScript), multi-page TIFF, BMP and PBM, and hostile PDFs (nested forms, a huge embedded
 * image). The PDF writer is deliberately plain (one image per page, a classic cross-reference
 * table) so that every byte of a fixture is explained here.
 */

const escapeMarkup = (text: string) => text.replaceAll("&", "&amp;").replaceAll("<", "&lt;").replaceAll(">", "&gt;");

/** A white page with `text` in 40 px DejaVu Sans, as a scanner at 300 dpi would see 10 pt type; grey JPEG. */
export const scannedPage = async (text: string, width = 1600): Promise<Uint8Array> => {
  const rendered = await sharp({
    text: { text: `<span foreground="#202020">${escapeMarkup(text)}</span>`, font: "DejaVu Sans 40", width: width - 160, dpi: 72, rgba: true, spacing: 16 },
  })
    .png()
    .toBuffer();
  const page = await sharp(rendered)
    .extend({ top: 120, bottom: 200, left: 80, right: 80, background: "#ffffff" })
    .flatten({ background: "#ffffff" })
    .png()
    .toBuffer();
  return new Uint8Array(await sharp(page).toColourspace("b-w").jpeg({ quality: 90 }).toBuffer());
};

export interface PdfOptions {
  /** Document-level JavaScript: as an /OpenAction in plain words, or in a name tree with escaped names (#xx) that only a PDF parser reads. */
  readonly javascript?: "open-action" | "escaped-name-tree";
  /** Standard security handler, RC4 40-bit (revision 2), with this user password ("" opens without one). */
  readonly userPassword?: string;
}

const PAD = Buffer.from("28bf4e5e4e758a4164004e56fffa01082e2e00b6d0683e802f0ca9fe6453697a", "hex");
const padded = (password: string) => Buffer.concat([Buffer.from(password, "latin1"), PAD]).subarray(0, 32);
const md5 = (...parts: ReadonlyArray<Buffer>) => crypto.createHash("md5").update(Buffer.concat(parts)).digest();

/** RC4, which the PDF standard security handler uses; OpenSSL 3 no longer offers it by default. */
const rc4 = (key: Buffer, data: Buffer): Buffer => {
  const s = Array.from({ length: 256 }, (_, i) => i);
  for (let i = 0, j = 0; i < 256; i++) {
    j = (j + s[i]! + key[i % key.length]!) & 255;
    [s[i], s[j]] = [s[j]!, s[i]!];
  }
  const out = Buffer.alloc(data.length);
  for (let n = 0, i = 0, j = 0; n < data.length; n++) {
    i = (i + 1) & 255;
    j = (j + s[i]!) & 255;
    [s[i], s[j]] = [s[j]!, s[i]!];
    out[n] = data[n]! ^ s[(s[i]! + s[j]!) & 255]!;
  }
  return out;
};

/** A PDF whose pages are the given JPEG images, each shown at `dpi`; `pages` may also be a number of blank pages. */
export const pdfOf = async (pages: ReadonlyArray<Uint8Array> | number, options: PdfOptions = {}, dpi = 300): Promise<Uint8Array> => {
  const images = typeof pages === "number" ? [] : pages;
  const count = typeof pages === "number" ? pages : pages.length;
  const id = crypto.randomBytes(16);
  const permissions = -44;
  const encryption =
    options.userPassword === undefined
      ? undefined
      : (() => {
          const owner = rc4(md5(padded("owner-password")).subarray(0, 5), padded(options.userPassword));
          const p = Buffer.alloc(4);
          p.writeInt32LE(permissions);
          const key = md5(padded(options.userPassword), owner, p, id).subarray(0, 5);
          return { key, owner, user: rc4(key, PAD) };
        })();
  const encrypt = (objectNumber: number, data: Buffer) => {
    if (encryption === undefined) return data;
    const salt = Buffer.from([objectNumber & 255, (objectNumber >> 8) & 255, (objectNumber >> 16) & 255, 0, 0]);
    return rc4(md5(encryption.key, salt).subarray(0, 10), data);
  };

  const objects: Array<Buffer> = [];
  const add = (body: string | Buffer) => objects.push(typeof body === "string" ? Buffer.from(body, "latin1") : body);
  const stream = (objectNumber: number, dictionary: string, data: Buffer) => {
    const sealed = encrypt(objectNumber, data);
    return Buffer.concat([Buffer.from(`<< ${dictionary} /Length ${sealed.length} >>\nstream\n`, "latin1"), sealed, Buffer.from("\nendstream", "latin1")]);
  };

  // 1 catalog, 2 page tree, 3 script (if any), then per page: page, contents, image.
  const firstPage = 4;
  const kids = Array.from({ length: count }, (_, i) => `${firstPage + i * 3} 0 R`).join(" ");
  const script = "(app.alert\\(1\\))";
  const catalogExtras =
    options.javascript === "open-action" ? " /OpenAction 3 0 R" : options.javascript === "escaped-name-tree" ? " /Names << /J#61vaScript 3 0 R >>" : "";
  add(`<< /Type /Catalog /Pages 2 0 R${catalogExtras} >>`);
  add(`<< /Type /Pages /Kids [${kids}] /Count ${count} >>`);
  add(
    options.javascript === "escaped-name-tree"
      ? `<< /Names [(hello) << /S /J#61vaScript /J#53 ${script} >>] >>`
      : options.javascript === "open-action"
        ? `<< /S /JavaScript /JS ${script} >>`
        : "<< >>",
  );
  for (let i = 0; i < count; i++) {
    const pageNumber = firstPage + i * 3;
    const image = images[i];
    const { width = 850, height = 1100, channels = 1 } = image === undefined ? {} : await sharp(image).metadata();
    const points = (pixels: number) => ((pixels * 72) / dpi).toFixed(2);
    const [w, h] = [points(width), points(height)];
    add(`<< /Type /Page /Parent 2 0 R /MediaBox [0 0 ${w} ${h}] /Resources << /XObject << /Im0 ${pageNumber + 2} 0 R >> >> /Contents ${pageNumber + 1} 0 R >>`);
    add(stream(pageNumber + 1, "", Buffer.from(image === undefined ? "" : `q ${w} 0 0 ${h} 0 0 cm /Im0 Do Q`, "latin1")));
    add(
      stream(
        pageNumber + 2,
        `/Type /XObject /Subtype /Image /Width ${width} /Height ${height} /ColorSpace /Device${channels === 1 ? "Gray" : "RGB"} /BitsPerComponent 8 /Filter /DCTDecode`,
        Buffer.from(
          image ??
            (await sharp({ create: { width, height, channels: 3, background: "#ffffff" } })
              .toColourspace("b-w")
              .jpeg()
              .toBuffer()),
        ),
      ),
    );
  }
  if (encryption !== undefined) {
    add(`<< /Filter /Standard /V 1 /R 2 /O <${encryption.owner.toString("hex")}> /U <${encryption.user.toString("hex")}> /P ${permissions} >>`);
  }

  const encryptEntry = encryption === undefined ? "" : ` /Encrypt ${objects.length} 0 R`;
  return assemblePdf(objects, ` /ID [<${id.toString("hex")}> <${id.toString("hex")}>]${encryptEntry}`);
};

/** Numbers `objects` from 1 (the first is the catalog) and writes them with a classic cross-reference table. */
const assemblePdf = (objects: ReadonlyArray<Buffer>, trailerExtras = ""): Uint8Array => {
  const parts: Array<Buffer> = [Buffer.from("%PDF-1.4\n%\xe2\xe3\xcf\xd3\n", "latin1")];
  const offsets: Array<number> = [];
  let length = parts[0]!.length;
  objects.forEach((body, index) => {
    offsets.push(length);
    const object = Buffer.concat([Buffer.from(`${index + 1} 0 obj\n`, "latin1"), body, Buffer.from("\nendobj\n", "latin1")]);
    parts.push(object);
    length += object.length;
  });
  const xref = [`xref\n0 ${objects.length + 1}\n0000000000 65535 f \n`, ...offsets.map((offset) => `${String(offset).padStart(10, "0")} 00000 n \n`)].join("");
  const trailer = `trailer\n<< /Size ${objects.length + 1} /Root 1 0 R${trailerExtras} >>\nstartxref\n${length}\n%%EOF\n`;
  parts.push(Buffer.from(xref + trailer, "latin1"));
  return new Uint8Array(Buffer.concat(parts));
};

const plainStream = (dictionary: string, data: Buffer) =>
  Buffer.concat([Buffer.from(`<< ${dictionary} /Length ${data.length} >>\nstream\n`, "latin1"), data, Buffer.from("\nendstream", "latin1")]);

/** A one-page Letter PDF whose page shows the form or image object 4 with `pageContent`; `rest` are objects 4, 5, … */
const onePagePdf = (pageContent: string, rest: ReadonlyArray<Buffer>) =>
  assemblePdf([
    Buffer.from("<< /Type /Catalog /Pages 2 0 R >>", "latin1"),
    Buffer.from("<< /Type /Pages /Kids [3 0 R] /Count 1 >>", "latin1"),
    Buffer.from(`<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] /Resources << /XObject << /X 4 0 R >> >> /Contents ${4 + rest.length} 0 R >>`, "latin1"),
    ...rest,
    plainStream("", Buffer.from(pageContent, "latin1")),
  ]);

/**
 * A PDF bomb of a few KB: the page draws a form XObject 10 times, which draws the next 10 times,
 * `depth` forms deep, the last one a small square: 10^depth squares to draw, each form drawn
 * in full where it is used.
 */
export const nestedFormsPdf = (depth = 8): Uint8Array => {
  const tenTimes = (name: string) => Array.from({ length: 10 }, (_, i) => `q 1 0 0 1 ${i} ${i} cm /${name} Do Q`).join("\n");
  const forms = Array.from({ length: depth }, (_, level) => {
    const last = level === depth - 1;
    const resources = last ? "" : ` /Resources << /XObject << /X ${5 + level} 0 R >> >>`;
    return plainStream(`/Type /XObject /Subtype /Form /BBox [0 0 612 792]${resources}`, Buffer.from(last ? "0 0 10 10 re f" : tenTimes("X"), "latin1"));
  });
  return onePagePdf(tenTimes("X"), forms);
};

/**
 * A PDF of one page showing one RGB image of `width` × `height` pixels, all black, as a Flate
 * stream: 20000 × 20000 (1.2 GB of pixels) is ~1.2 MB. Deflated in pieces, so the pixels are
 * never in memory at once.
 */
export const embeddedImagePdf = async (width: number, height: number): Promise<Uint8Array> => {
  const deflate = zlib.createDeflate({ level: 9 });
  const chunks: Array<Buffer> = [];
  deflate.on("data", (chunk: Buffer) => chunks.push(chunk));
  const ended = new Promise((resolve, reject) => deflate.on("end", resolve).on("error", reject));
  const piece = Buffer.alloc(64 * 2 ** 20);
  for (let left = width * height * 3; left > 0; left -= piece.length) {
    if (!deflate.write(left >= piece.length ? piece : piece.subarray(0, left))) await new Promise((resolve) => deflate.once("drain", resolve));
  }
  deflate.end();
  await ended;
  const image = plainStream(
    `/Type /XObject /Subtype /Image /Width ${width} /Height ${height} /ColorSpace /DeviceRGB /BitsPerComponent 8 /Filter /FlateDecode`,
    Buffer.concat(chunks),
  );
  return onePagePdf("q 612 0 0 792 0 0 cm /X Do Q", [image]);
};

/** A multi-page TIFF of the given pages (each made the size of the first, white around). */
export const tiffOf = async (pages: ReadonlyArray<Uint8Array>): Promise<Uint8Array> => {
  const { width = 0, height = 0 } = await sharp(pages[0]).metadata();
  const same = await Promise.all(
    pages.map((page) => sharp(page).resize({ width, height, fit: "contain", background: "#ffffff" }).greyscale().png().toBuffer()),
  );
  return new Uint8Array(
    await sharp(same, { join: { animated: true } })
      .tiff({ compression: "lzw" })
      .toBuffer(),
  );
};

/** An uncompressed 24-bit BMP (bottom-up rows, 40-byte info header) of any image. */
export const bmpOf = async (image: Uint8Array): Promise<Uint8Array> => {
  const { data, info } = await sharp(image).flatten({ background: "#ffffff" }).toColourspace("srgb").removeAlpha().raw().toBuffer({ resolveWithObject: true });
  const rowBytes = Math.ceil((info.width * 3) / 4) * 4;
  const file = Buffer.alloc(54 + rowBytes * info.height);
  file.write("BM", 0, "latin1");
  file.writeUInt32LE(file.length, 2);
  file.writeUInt32LE(54, 10);
  file.writeUInt32LE(40, 14);
  file.writeInt32LE(info.width, 18);
  file.writeInt32LE(info.height, 22);
  file.writeUInt16LE(1, 26);
  file.writeUInt16LE(24, 28);
  file.writeUInt32LE(rowBytes * info.height, 34);
  for (let y = 0; y < info.height; y++) {
    const row = 54 + (info.height - 1 - y) * rowBytes;
    for (let x = 0; x < info.width; x++) {
      const from = (y * info.width + x) * 3;
      file[row + x * 3] = data[from + 2]!;
      file[row + x * 3 + 1] = data[from + 1]!;
      file[row + x * 3 + 2] = data[from]!;
    }
  }
  return new Uint8Array(file);
};

/** A binary PBM (P4): the image thresholded at mid-grey, 1 = black, rows padded to whole bytes. */
export const pbmOf = async (image: Uint8Array): Promise<Uint8Array> => {
  const { data, info } = await sharp(image).flatten({ background: "#ffffff" }).greyscale().threshold(128).raw().toBuffer({ resolveWithObject: true });
  const rowBytes = Math.ceil(info.width / 8);
  const header = Buffer.from(`P4\n# made by test/support/document-fixtures.ts\n${info.width} ${info.height}\n`, "latin1");
  const bits = Buffer.alloc(rowBytes * info.height);
  for (let y = 0; y < info.height; y++) {
    for (let x = 0; x < info.width; x++) {
      const at = y * rowBytes + (x >> 3);
      if (data[y * info.width + x]! < 128) bits[at] = bits[at]! | (0x80 >> (x & 7));
    }
  }
  return new Uint8Array(Buffer.concat([header, bits]));
};
