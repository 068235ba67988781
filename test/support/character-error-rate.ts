/**
 * Character error rate: edit distance between recognised text and ground truth, over the
 * length of the ground truth. Both sides are normalised first so that layout whitespace and
 * typographic variants of the same character do not count as errors: NFKC, curly quotes to
 * straight ones, whitespace runs to one space (removed entirely between CJK characters, where
 * the script uses none).
 */
const CJK = /[\p{Script=Han}\p{Script=Hiragana}\p{Script=Katakana}\u3000-\u303f\uff00-\uffef]/u;

export const normaliseForCer = (text: string): string => {
  const flat = text
    .normalize("NFKC")
    .replace(/[‘’‚‛′]/g, "'")
    .replace(/[“”„‟″]/g, '"')
    .replace(/[‐‑‒–—]/g, "-")
    .replace(/\s+/g, " ")
    .trim();
  const chars = [...flat];
  return chars.filter((c, i) => !(c === " " && (CJK.test(chars[i - 1] ?? "") || CJK.test(chars[i + 1] ?? "")))).join("");
};

const editDistance = (a: ReadonlyArray<string>, b: ReadonlyArray<string>): number => {
  let previous = Array.from({ length: b.length + 1 }, (_, j) => j);
  for (let i = 1; i <= a.length; i++) {
    const current = [i];
    for (let j = 1; j <= b.length; j++) {
      const substitution = (previous[j - 1] ?? 0) + (a[i - 1] === b[j - 1] ? 0 : 1);
      current[j] = Math.min((previous[j] ?? 0) + 1, (current[j - 1] ?? 0) + 1, substitution);
    }
    previous = current;
  }
  return previous[b.length] ?? 0;
};

export interface CerCount {
  readonly errors: number;
  readonly length: number;
}

export const cerCount = (recognised: string, groundTruth: string): CerCount => {
  const reference = [...normaliseForCer(groundTruth)];
  return { errors: editDistance([...normaliseForCer(recognised)], reference), length: reference.length };
};

/** Pooled CER in percent: total errors over total reference characters. */
export const cerPercent = (counts: ReadonlyArray<CerCount>): number => {
  const length = counts.reduce((sum, c) => sum + c.length, 0);
  return length === 0 ? 0 : (100 * counts.reduce((sum, c) => sum + c.errors, 0)) / length;
};
