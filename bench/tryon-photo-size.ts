/**
 * What a photo's size costs a try-on, before and after the try-on moved to its own thread and to
 * a working resolution (hostile case 2): p50, peak RSS and the longest event-loop stall at 0.8,
 * 12 and 40 MP, for the code of BEFORE (a git revision, default the last one before the change)
 * and for this checkout, each side in a fresh process, alternating, in one run.
 *
 *   npm run bench:tryon-sizes [-- RUNS [BEFORE]]
 */
import { execFileSync } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";

const ROOT = path.resolve(import.meta.dirname, "..");
const runs = process.argv[2] ?? "3";
const before = process.argv[3] ?? "044a6b2";
const sizes = [
  ["0.8 MP", 768, 1024],
  ["12 MP", 3000, 4000],
  ["40 MP", 5472, 7296],
] as const;

// The BEFORE tree: its src/ and models/ (the repository's own model files, where it has them) beside this checkout's node_modules.
const beforeRoot = fs.mkdtempSync(path.join(os.tmpdir(), "its-tryon-before-"));
const folders = execFileSync("git", ["-C", ROOT, "ls-tree", "--name-only", before, "src", "models"], { encoding: "utf8" }).split("\n").filter(Boolean);
execFileSync("bash", ["-c", `git -C "${ROOT}" archive ${before} ${folders.join(" ")} | tar -x -C "${beforeRoot}"`]);
fs.symlinkSync(path.join(ROOT, "node_modules"), path.join(beforeRoot, "node_modules"));

const probe = (root: string, mode: string, width: number, height: number) =>
  JSON.parse(
    execFileSync(process.execPath, [path.join(ROOT, "bench/support/tryon-size-probe.ts"), root, mode, String(width), String(height), runs], {
      cwd: ROOT,
      encoding: "utf8",
      maxBuffer: 1 << 20,
    })
      .trim()
      .split("\n")
      .at(-1)!,
  ) as { p50Ms: number; peakRssMiB: number; longestStallMs: number };

const rows = [];
for (const [label, width, height] of sizes) {
  const old = probe(beforeRoot, "in-process", width, height);
  const now = probe(ROOT, "thread", width, height);
  rows.push({
    size: label,
    before: old,
    after: now,
    p50Ratio: Number((now.p50Ms / old.p50Ms).toFixed(2)),
    rssRatio: Number((now.peakRssMiB / old.peakRssMiB).toFixed(2)),
  });
}
fs.rmSync(beforeRoot, { recursive: true, force: true });
console.log(
  JSON.stringify(
    {
      machine: `${os.cpus().length} cores, load ${os
        .loadavg()
        .map((l) => l.toFixed(1))
        .join(" ")}`,
      before,
      runs: Number(runs),
      rows,
    },
    null,
    2,
  ),
);
