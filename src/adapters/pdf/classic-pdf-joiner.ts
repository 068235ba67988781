import { Effect, Layer } from "effect";
import { PdfJoiner } from "../../ports/engines/pdf-joiner.ts";
import { DependencyUnavailable } from "../../ports/errors.ts";
import { type ClassicPdf, readClassicPdf } from "./classic-pdf.ts";

/**
 * Joins plainly written PDFs (classic-pdf.ts) by copying every object of each into one file,
 * renumbered: a new catalog and page tree over all their pages, each page's objects (content,
 * image, font) as they were, the first file's document information kept. Objects shared inside
 * one file stay shared; nothing is shared between files (a few hundred bytes of font per page).
 */
const catalog = 1;
const pageTree = 2;

const renumber = (head: string, numbers: ReadonlyMap<number, number>) =>
  head.replace(/(?<!\d)(\d+)(\s+)0(\s+)R\b/gu, (whole, number: string, a: string, b: string) => {
    const renumbered = numbers.get(Number(number));
    return renumbered === undefined ? whole : `${renumbered}${a}0${b}R`;
  });

export const joinClassicPdfs = (files: ReadonlyArray<Uint8Array>): Uint8Array => {
  const documents: ReadonlyArray<ClassicPdf> = files.map(readClassicPdf);
  const chunks: Array<Uint8Array> = [];
  const offsets: Array<number> = [];
  let length = 0;
  const write = (chunk: Uint8Array | string) => {
    const bytes = typeof chunk === "string" ? Buffer.from(chunk, "latin1") : chunk;
    chunks.push(bytes);
    length += bytes.byteLength;
  };
  const begin = (number: number) => {
    offsets[number] = length;
    write(`${number} 0 obj`);
  };

  // A binary comment after the header, as the format recommends, so that transfers keep it binary.
  write("%PDF-1.5\n%\xe2\xe3\xcf\xd3\n");
  let next = pageTree + 1;
  const kids: Array<number> = [];
  let info: number | undefined;
  for (const [index, document] of documents.entries()) {
    const numbers = new Map<number, number>([[document.pagesNode, pageTree]]);
    for (const number of document.objects.keys()) {
      const dropped = number === document.root || number === document.pagesNode || (index > 0 && number === document.info);
      if (!dropped) numbers.set(number, next++);
    }
    kids.push(...document.pages.map((page) => numbers.get(page)!));
    if (index === 0 && document.info !== undefined) info = numbers.get(document.info);
    for (const [number, object] of document.objects) {
      const renumbered = numbers.get(number);
      if (renumbered === undefined || renumbered === pageTree) continue;
      begin(renumbered);
      write(renumber(object.head, numbers));
      write(object.stream);
      write("endobj\n");
    }
  }
  begin(catalog);
  write(`\n<< /Type /Catalog /Pages ${pageTree} 0 R >>\nendobj\n`);
  begin(pageTree);
  write(`\n<< /Type /Pages /Kids [ ${kids.map((kid) => `${kid} 0 R`).join(" ")} ] /Count ${kids.length} >>\nendobj\n`);

  const xrefAt = length;
  const entries = Array.from({ length: next }, (_, number) =>
    offsets[number] === undefined ? "0000000000 65535 f \n" : `${String(offsets[number]).padStart(10, "0")} 00000 n \n`,
  );
  write(`xref\n0 ${next}\n${entries.join("")}`);
  write(`trailer\n<< /Size ${next} /Root ${catalog} 0 R${info === undefined ? "" : ` /Info ${info} 0 R`} >>\nstartxref\n${xrefAt}\n%%EOF\n`);
  return Buffer.concat(chunks);
};

/** PdfJoiner for the pages Tesseract's renderer writes. */
export const ClassicPdfJoinerLive = Layer.succeed(PdfJoiner)({
  join: (pages) =>
    Effect.try({
      try: () => new Uint8Array(joinClassicPdfs(pages)),
      catch: (cause) => new DependencyUnavailable({ dependency: "pdf-joiner", cause }),
    }),
});
