/**
 * Plain-text conventions shared by the engines: no blanks between CJK characters (Tesseract
 * separates every ideograph by a space, but the scripts use none), no trailing blanks, and
 * "" rather than stray whitespace when nothing was read.
 */
const cjk = String.raw`\p{Script=Han}\p{Script=Hiragana}\p{Script=Katakana}\u3000-\u303f\uff00-\uffef`;
// A run of blanks is only entered at its first blank, so a long run costs its length, not its square.
const blankNextToCjk = new RegExp(String.raw`(?<=[${cjk}]) +|(?<! ) +(?=[${cjk}])`, "gu");

export const tidyOcrText = (text: string): string =>
  text
    .replace(blankNextToCjk, "")
    .split("\n")
    .map((line) => line.trimEnd())
    .join("\n")
    .replace(/\n{3,}/g, "\n\n")
    .trim();
