import { describe, expect, it } from "vitest";
import { documentResult, type OcrPageResult } from "../../src/application/transformations/ocr-document-result.ts";

const page = (number: number, text: string, language: string, confidence: number): OcrPageResult => ({
  page: number,
  text,
  language,
  confidence,
  outputFormat: "text",
});

describe("a document's result", () => {
  it("joins the pages' text by a blank line, skipping empty pages, and keeps every page", () => {
    const pages = [page(1, "first", "eng", 90), page(2, "", "eng", 0), page(3, "third", "deu", 80)];
    const result = documentResult("text", pages);
    expect(result.text).toBe("first\n\nthird");
    expect(result.pages).toBe(pages);
    expect(result.outputFormat).toBe("text");
  });

  it("names the language most pages were read in (the first met on a tie)", () => {
    expect(documentResult("text", [page(1, "a", "deu", 90), page(2, "b", "eng", 90), page(3, "c", "eng", 90)]).language).toBe("eng");
    expect(documentResult("text", [page(1, "a", "deu", 90), page(2, "b", "eng", 90)]).language).toBe("deu");
  });

  it("weighs each page's confidence by its characters; pages without text weigh nothing", () => {
    expect(documentResult("text", [page(1, "abc", "eng", 90), page(2, "a", "eng", 50), page(3, "", "eng", 0)]).confidence).toBe(80);
    expect(documentResult("text", [page(1, "", "eng", 0)]).confidence).toBe(0);
  });
});
