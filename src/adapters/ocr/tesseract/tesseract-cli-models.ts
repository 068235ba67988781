import { execFile } from "node:child_process";
import { createHash } from "node:crypto";
import { createReadStream, createWriteStream } from "node:fs";
import { mkdir, rename, rm, stat, symlink } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { pipeline } from "node:stream/promises";
import { promisify } from "node:util";
import { createGunzip } from "node:zlib";
import type { OcrLanguage } from "../../../ports/engines/ocr-engine.ts";
import { dataFile, unpackedSize } from "./tesseract-language-data.ts";

/**
 * The models the native `tesseract` CLI reads, gathered in one folder it is pointed at
 * (`--tessdata-dir`): the npm package's model that tesseract.js reads (`4.0.0_best_int`, `osd` from
 * `4.0.0`), unpacked, so that both runtimes give the same readings and every language offered is
 * read without installing more than the CLI; or, with `system`, the system's own model where its
 * package is installed (Debian's `tesseract-ocr-<lang>`: the models the CLI reads by itself,
 * tessdata_fast: the CLI's pace and readings, less accurate on some scripts). Files are linked or
 * unpacked once per machine and set of models.
 */
export interface TesseractCli {
  readonly command: string;
  /** The folder holding the models asked for so far. */
  readonly folder: string;
  /** Links or unpacks the models of `codes` not yet there. */
  readonly unpack: (codes: ReadonlyArray<OcrLanguage | "osd">) => Promise<void>;
}

const run = promisify(execFile);

/** The folder the CLI reads its own data from (`--list-langs` names it), once its version is checked. */
const inspect = async (command: string): Promise<{ systemFolder: string }> => {
  const { stdout: versionOutput } = await run(command, ["--version"]);
  const version = /^tesseract (\d+\.\d+\.\d+)/mu.exec(versionOutput)?.[1];
  if (version === undefined || Number(version.split(".")[0]) < 5)
    throw new Error(`${command} --version: expected tesseract 5 or later, got ${JSON.stringify(versionOutput.slice(0, 80))}`);
  const { stdout: languages } = await run(command, ["--list-langs"]);
  const systemFolder = /languages in "([^"]+)"/u.exec(languages)?.[1];
  if (systemFolder === undefined) throw new Error(`${command} --list-langs named no data folder`);
  return { systemFolder };
};

/** The system's model of `code`, when its package is installed and the system's models are read. */
const systemModel = async (systemFolder: string | undefined, code: OcrLanguage | "osd"): Promise<string | undefined> => {
  if (systemFolder === undefined) return undefined;
  const file = path.join(systemFolder, `${code}.traineddata`);
  return stat(file).then(
    (found) => (found.isFile() ? file : undefined),
    () => undefined,
  );
};

/** One folder per set of model files: an installed or changed package (another size) gives a new one. */
const folderFor = async (systemFolder: string | undefined, codes: ReadonlyArray<OcrLanguage | "osd">): Promise<string> => {
  const hash = createHash("sha256");
  for (const code of codes) {
    const file = (await systemModel(systemFolder, code)) ?? dataFile(code);
    hash.update(`${file}:${(await stat(file)).size}\n`);
  }
  return path.join(os.tmpdir(), `tesseract-models-${process.getuid?.() ?? "user"}-${hash.digest("hex").slice(0, 16)}`);
};

const linkInto = (folder: string, file: string, name: string) =>
  symlink(file, path.join(folder, name)).catch((error: NodeJS.ErrnoException) => {
    if (error.code !== "EEXIST") throw error;
  });

/** Links the system's model, or unpacks the package's to a private name, then renames: another process never reads half a file. */
const gatherInto = async (folder: string, systemFolder: string | undefined, code: OcrLanguage | "osd"): Promise<void> => {
  const system = await systemModel(systemFolder, code);
  if (system !== undefined) return linkInto(folder, system, `${code}.traineddata`);
  const target = path.join(folder, `${code}.traineddata`);
  const expected = await unpackedSize(code);
  const present = await stat(target).then(
    (found) => found.size === expected,
    () => false,
  );
  if (present) return;
  const partial = `${target}.${process.pid}.${Date.now()}.part`;
  try {
    await pipeline(createReadStream(dataFile(code)), createGunzip(), createWriteStream(partial));
    await rename(partial, target);
  } finally {
    await rm(partial, { force: true });
  }
};

export const openTesseractCli = async (command: string, offered: ReadonlyArray<OcrLanguage>, models: "packaged" | "system"): Promise<TesseractCli> => {
  const { systemFolder } = await inspect(command);
  const system = models === "system" ? systemFolder : undefined;
  const folder = await folderFor(system, [...offered, "osd"]);
  await mkdir(folder, { recursive: true });
  const unpacked = new Map<string, Promise<void>>();
  const unpack = async (codes: ReadonlyArray<OcrLanguage | "osd">) => {
    await Promise.all(
      codes.map((code) => {
        const once = unpacked.get(code) ?? gatherInto(folder, system, code);
        unpacked.set(code, once);
        // A failed unpacking is tried again by the next request rather than remembered.
        once.catch(() => unpacked.delete(code));
        return once;
      }),
    );
  };
  return { command, folder, unpack };
};
