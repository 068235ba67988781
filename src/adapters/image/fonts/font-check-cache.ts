import { createHash } from "node:crypto";
import fs from "node:fs";
import path from "node:path";
import sharp from "sharp";
import type { FontCheck } from "./font-check.ts";

/**
 * The start check's answer kept between starts. What the check draws depends only on the font
 * files, the fontconfig configuration that points at them, the families' claims and the libraries that draw
 * (libvips, Pango, HarfBuzz, FreeType, fontconfig): a start whose inputs are all those of a check
 * already made reads its answer, and one with any of them changed (a file gone, resized or touched,
 * another library) checks again. A start then opens no face: fonts are loaded when text is first
 * drawn, and every start of an install but the first saves the check's 0.4–0.7 s of CPU.
 */
export const fontCheckKey = (
  /** The fontconfig file's content, less what differs from one DATA_DIR to another (its cache folders). */
  fontconfig: string,
  folders: ReadonlyArray<string>,
  claims: unknown,
): string => {
  // Every file under each folder, as fontconfig scans them: a face in a weight's subfolder counts.
  const files = folders.map((folder) =>
    fs
      .readdirSync(folder, { recursive: true, encoding: "utf8" })
      .sort()
      .map((name) => {
        const stat = fs.statSync(path.join(folder, name));
        return [name, stat.size, stat.mtimeMs];
      }),
  );
  const inputs = { fontconfig, folders, files, claims, libraries: sharp.versions };
  return createHash("sha256").update(JSON.stringify(inputs)).digest("hex");
};

interface Kept {
  readonly key: string;
  readonly check: FontCheck;
}

const read = (file: string, key: string): FontCheck | undefined => {
  try {
    const kept = JSON.parse(fs.readFileSync(file, "utf8")) as Kept;
    return kept.key === key ? kept.check : undefined;
  } catch {
    return undefined;
  }
};

/** Whole or not at all: several instances may start at once. False where the folder is read-only. */
const write = (file: string, kept: Kept): boolean => {
  try {
    fs.mkdirSync(path.dirname(file), { recursive: true });
    fs.writeFileSync(`${file}.${process.pid}.tmp`, JSON.stringify(kept));
    fs.renameSync(`${file}.${process.pid}.tmp`, file);
    return true;
  } catch {
    return false;
  }
};

/**
 * The check's answer for `key` from the first of `files` that holds it, else `run`'s, kept in the
 * first of `files` that may be written (the install's shared cache; DATA_DIR's where node_modules is
 * read-only, as in the image).
 */
export const cachedFontCheck = async (
  files: ReadonlyArray<string>,
  key: string,
  run: () => Promise<FontCheck>,
): Promise<{ readonly check: FontCheck; readonly kept: boolean }> => {
  for (const file of files) {
    const check = read(file, key);
    if (check !== undefined) return { check, kept: true };
  }
  const check = await run();
  files.some((file) => write(file, { key, check }));
  return { check, kept: false };
};
