import { execFile } from "node:child_process";
import { mkdtemp, readdir, readFile, rm, writeFile } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { promisify } from "node:util";

/**
 * A PDF read back as a real reader does, with Poppler's tools (Debian poppler-utils, which
 * tools/system-packages/ensure.sh installs): its text layer (pdftotext -raw: in the order the
 * page's content gives it, which for an OCR text layer is the reading order the engine found;
 * pdftotext's default re-flows words by position and may put a line's last word under the
 * next line), its page count and
 * sizes (pdfinfo), and each page drawn (pdftoppm). Poppler's complaints about the file go to
 * `warnings`, which a well-made PDF leaves empty.
 */
const run = promisify(execFile);

export interface PdfReadBack {
  readonly text: string;
  readonly pages: number;
  /** Each page's size in points, as pdfinfo prints it ("612 x 792"). */
  readonly pageSizes: ReadonlyArray<{ readonly width: number; readonly height: number }>;
  /** Each page drawn at `dpi` as PNG. */
  readonly renderings: ReadonlyArray<Uint8Array>;
  readonly warnings: string;
}

export const readPdfBack = async (pdf: Uint8Array, dpi = 50): Promise<PdfReadBack> => {
  const folder = await mkdtemp(path.join(os.tmpdir(), "pdf-read-back-"));
  try {
    const file = path.join(folder, "document.pdf");
    await writeFile(file, pdf);
    const text = await run("pdftotext", ["-raw", "-enc", "UTF-8", file, "-"]);
    const info = await run("pdfinfo", ["-f", "1", "-l", "9999", file]);
    const drawn = await run("pdftoppm", ["-r", String(dpi), "-png", file, path.join(folder, "page")]);
    const pageSizes = [...info.stdout.matchAll(/^Page\s+\d+ size:\s+([\d.]+) x ([\d.]+) pts/gmu)].map((size) => ({
      width: Number(size[1]),
      height: Number(size[2]),
    }));
    const names = (await readdir(folder)).filter((name) => name.startsWith("page")).sort();
    return {
      text: text.stdout,
      pages: Number(/^Pages:\s+(\d+)/mu.exec(info.stdout)?.[1] ?? 0),
      pageSizes,
      renderings: await Promise.all(names.map(async (name) => new Uint8Array(await readFile(path.join(folder, name))))),
      warnings: [text.stderr, info.stderr, drawn.stderr].join("").trim(),
    };
  } finally {
    await rm(folder, { recursive: true, force: true });
  }
};
