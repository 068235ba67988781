import { execFile } from "node:child_process";
import { promisify } from "node:util";

const run = promisify(execFile);

/** The languages the native `tesseract` CLI has installed (Debian tesseract-ocr-<lang>); none when it is absent. */
export const nativeLanguages = async (): Promise<Set<string>> => {
  try {
    const { stdout, stderr } = await run("tesseract", ["--list-langs"]);
    return new Set(`${stdout}\n${stderr}`.split("\n").map((line) => line.trim()));
  } catch {
    return new Set();
  }
};
