/**
 * Refuses a SERVER_SECRET that is obviously weak. Every key hash and result-URL signature is
 * derived from it, so a guessable one lets anyone sign result URLs and test stolen key hashes
 * offline. "Obviously": a repeated pattern ("abcabc…", "s" × 40), or too little variety for its
 * length (estimated below 96 bits from its character frequencies: words, "changeme…"). A secret
 * made by `openssl rand -hex 32` or `-base64 32` passes with room to spare.
 */
export const MIN_SECRET_BITS = 96;

/** The shortest period p with text[i] = text[i - p] everywhere (KMP's failure function: linear). */
const shortestPeriod = (text: string): number => {
  const failure = new Array<number>(text.length).fill(0);
  for (let i = 1, k = 0; i < text.length; i++) {
    while (k > 0 && text[i] !== text[k]) k = failure[k - 1]!;
    if (text[i] === text[k]) k++;
    failure[i] = k;
  }
  return text.length - (failure[text.length - 1] ?? 0);
};

/** Shannon entropy of the character frequencies, times the length: an upper bound for a patterned text. */
const estimatedBits = (text: string): number => {
  const counts = new Map<string, number>();
  for (const character of text) counts.set(character, (counts.get(character) ?? 0) + 1);
  let bitsPerCharacter = 0;
  for (const count of counts.values()) bitsPerCharacter -= (count / text.length) * Math.log2(count / text.length);
  return bitsPerCharacter * text.length;
};

/** Why the secret is weak, or undefined when it is not obviously so. */
export const secretWeakness = (secret: string): string | undefined => {
  if (shortestPeriod(secret) <= secret.length / 2) return "it repeats a shorter pattern";
  const bits = estimatedBits(secret);
  if (bits < MIN_SECRET_BITS) return `it holds about ${Math.floor(bits)} bits of variety; use at least ${MIN_SECRET_BITS} (e.g. openssl rand -hex 32)`;
  return undefined;
};
