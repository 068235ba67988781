import { execFile } from "node:child_process";
import path from "node:path";
import { promisify } from "node:util";
import { describe, expect, it } from "vitest";

/** The README's `npx itsctl …` runs the operator tool with nothing but its own output: npm has no config of ours to warn about. */
describe("npx itsctl", () => {
  it("prints its help and no npm warning", async () => {
    const { stdout, stderr } = await promisify(execFile)("npx", ["itsctl", "--help"], { cwd: path.resolve(import.meta.dirname, "../..") });
    expect(stdout).toContain("Usage: itsctl");
    expect(stderr).not.toMatch(/npm warn/i);
  });
});
