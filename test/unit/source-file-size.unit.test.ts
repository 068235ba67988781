import { describe, expect, it } from "vitest";
import { sourceFiles } from "../support/source-files.ts";

// A file that outgrows this holds more than one concept: split it by concern, not by squeezing lines.
const MAX_LINES = 300;

describe("source files", () => {
  it(`are at most ${MAX_LINES} lines each`, () => {
    const files = sourceFiles();
    expect(files.length).toBeGreaterThan(100);
    const lineCount = (text: string) => text.split("\n").length - (text.endsWith("\n") ? 1 : 0);
    const over = files.filter(({ text }) => lineCount(text) > MAX_LINES).map(({ file, text }) => `${file}: ${lineCount(text)} lines`);
    expect(over).toEqual([]);
  });
});
