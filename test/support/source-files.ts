import fs from "node:fs";
import path from "node:path";

export const ROOT = path.resolve(import.meta.dirname, "../..");

/** Every TypeScript file under src/, as a path relative to the repository root, with its text. */
export const sourceFiles = (): ReadonlyArray<{ readonly file: string; readonly text: string }> =>
  (fs.readdirSync(path.join(ROOT, "src"), { recursive: true, encoding: "utf8" }) as ReadonlyArray<string>)
    .filter((name) => name.endsWith(".ts"))
    .map((name) => path.posix.join("src", name.split(path.sep).join("/")))
    .sort()
    .map((file) => ({ file, text: fs.readFileSync(path.join(ROOT, file), "utf8") }));
