/**
 * The objects of a PDF written plainly, as Tesseract's renderer writes it: a classic
 * cross-reference table (no cross-reference or object streams), no encryption, one flat page
 * tree. Anything else is refused: this reads the service's own output, never a client's file
 * (those go to PDFium).
 */
export class UnexpectedPdf extends Error {
  override readonly name = "UnexpectedPdf";
}

export interface PdfObject {
  /** The object's dictionary (or other value) before any stream: where its references are. */
  readonly head: string;
  /** `stream … endstream` as written, or "" for an object without a stream. */
  readonly stream: Uint8Array;
}

export interface ClassicPdf {
  readonly objects: ReadonlyMap<number, PdfObject>;
  readonly root: number;
  readonly info: number | undefined;
  /** The page tree's node, and its pages in order. */
  readonly pagesNode: number;
  readonly pages: ReadonlyArray<number>;
}

const reference = (dictionary: string, key: string): number | undefined => {
  const found = new RegExp(`/${key}\\s+(\\d+)\\s+0\\s+R`, "u").exec(dictionary);
  return found === null ? undefined : Number(found[1]);
};

const required = <A>(value: A | undefined, what: string): A => {
  if (value === undefined) throw new UnexpectedPdf(`not a plainly written PDF: ${what}`);
  return value;
};

export const readClassicPdf = (bytes: Uint8Array): ClassicPdf => {
  // latin1 keeps one character per byte, so string offsets are byte offsets.
  const text = Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength).toString("latin1");
  const xrefAt = Number(required(/startxref\s+(\d+)\s+%%EOF\s*$/u.exec(text)?.[1], "no startxref"));
  const trailerAt = text.indexOf("trailer", xrefAt);
  if (!text.startsWith("xref", xrefAt) || trailerAt < 0) throw new UnexpectedPdf("not a plainly written PDF: no cross-reference table");
  const trailer = text.slice(trailerAt, text.indexOf("startxref", trailerAt));
  if (trailer.includes("/Encrypt") || trailer.includes("/Prev")) throw new UnexpectedPdf("not a plainly written PDF: encrypted or updated");

  const offsets: Array<[number, number]> = [];
  let number = 0;
  for (const line of text.slice(xrefAt + 4, trailerAt).split(/\r?\n/u)) {
    const subsection = /^(\d+) (\d+)\s*$/u.exec(line);
    const entry = /^(\d{10}) (\d{5}) ([nf])\s*$/u.exec(line);
    if (subsection !== null) number = Number(subsection[1]);
    else if (entry !== null) {
      if (entry[3] === "n") offsets.push([number, Number(entry[1])]);
      number++;
    }
  }
  offsets.sort((a, b) => a[1] - b[1]);

  const objects = new Map<number, PdfObject>();
  for (const [index, [objectNumber, start]] of offsets.entries()) {
    const end = offsets[index + 1]?.[1] ?? xrefAt;
    const whole = text.slice(start, end);
    const header = new RegExp(`^${objectNumber}\\s+0\\s+obj`, "u").exec(whole);
    const close = whole.lastIndexOf("endobj");
    if (header === null || close < 0) throw new UnexpectedPdf(`not a plainly written PDF: object ${objectNumber} is not where its entry says`);
    const body = whole.slice(header[0].length, close);
    // A stream follows its dictionary; the dictionaries written here never hold the word.
    const streamAt = body.indexOf("stream");
    const head = streamAt >= 0 && body.slice(0, streamAt).trimEnd().endsWith(">>") ? body.slice(0, streamAt) : body;
    const streamStart = start + header[0].length + head.length;
    objects.set(objectNumber, { head, stream: bytes.subarray(streamStart, start + header[0].length + body.length) });
  }

  const root = required(reference(trailer, "Root"), "no catalog");
  const pagesNode = required(reference(required(objects.get(root), "no catalog").head, "Pages"), "no page tree");
  const kids = required(/\/Kids\s*\[([^\]]*)\]/u.exec(required(objects.get(pagesNode), "no page tree").head)?.[1], "no pages");
  const pages = [...kids.matchAll(/(?<!\d)(\d+)\s+0\s+R/gu)].map((kid) => Number(kid[1]));
  for (const page of pages) {
    if (!/\/Type\s*\/Page\b(?!s)/u.test(objects.get(page)?.head ?? ""))
      throw new UnexpectedPdf("not a plainly written PDF: a page tree of more than one level");
  }
  return { objects, root, info: reference(trailer, "Info"), pagesNode, pages };
};
