import fs from "node:fs";
import { describe, expect, it } from "vitest";
import { cerCount, cerPercent } from "../support/character-error-rate.ts";
import { pngImage, tesseractForSuite } from "../support/tesseract-for-suite.ts";

/**
 * Issue 30, `auto` on held-out pages that tripped it. A page OSD names Latin that holds a second script (src/adapters/ocr/unsure-lines.ts):
 * the Debian Administrator's Handbook's Arabic translation, whose paths and untranslated paragraphs
 * in Latin letters made OSD name the page Latin (script confidence 1.8), so that it was read in
 * English alone (CER 47.9 % for the CLI told `ara` alone; `eng` alone reads the Arabic as noise).
 * The sweep in test/accuracy/ocr-mixed-scripts.int.test.ts compares it with the CLI.
 */
const fixtures = new URL("../fixtures/held-out/", import.meta.url);
const engine = tesseractForSuite();

/** A held-out page read with `auto`: the languages named, and the CER against its ground truth. */
const readAuto = async (name: string) => {
  const image = await pngImage(new Uint8Array(fs.readFileSync(new URL(`${name}.png`, fixtures))));
  const result = await engine.recognize({ image, language: "auto", outputFormat: "text" });
  return { language: result.language, cer: cerPercent([cerCount(result.text, fs.readFileSync(new URL(`${name}.txt`, fixtures), "utf8"))]) };
};

describe("auto on held-out pages that tripped it", () => {
  it("finds the Arabic in the lines English read unsurely and reads the page with ara+eng", async () => {
    const { language, cer } = await readAuto("debian-handbook-ar-fhs");
    expect(language).toBe("ara+eng");
    // Measured 10.63, as the engine told ara+eng reads it (the CLI told ara+eng: 9.67).
    expect(cer).toBeLessThan(13);
  }, 180_000);

  it("leaves an English page OSD is as unsure of in English", async () => {
    // scikit-image's scanned page: script confidence 2.0, one line English reads below 60, none below 40.
    const { language, cer } = await readAuto("skimage-page");
    expect(language).toBe("eng");
    // Its uneven light: 44.15 through the service, 43.81 by the CLI told eng (the held-out sweep).
    expect(cer).toBeLessThan(46);
  }, 120_000);

  it("reads a screenshot of a table, too small for OSD, as English, not as a label in accented Latin", async () => {
    // GnuCash's bank statement, 510×244: named fra after 20-36 s (eight accented-Latin readings, four scripts' readings) until
    // a label was held to 12 words and digits stopped counting against the English reading's script (short-text-script.ts).
    const started = performance.now();
    const { language, cer } = await readAuto("gnucash-bank-statement");
    expect(language).toBe("eng");
    expect(cer).toBeLessThan(8);
    expect(performance.now() - started).toBeLessThan(15_000);
  }, 120_000);
});
