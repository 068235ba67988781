/**
 * The sizes of the images a PDF holds, read from their dictionaries (`/Subtype /Image`, `/Width`,
 * `/Height`) in the raw file before anything is decoded, so that a document is admitted by what
 * decoding it will cost. One pass over the bytes, each visited once: no regular expression, no
 * backtracking, stream data skipped (by its `/Length`, or up to the next `endstream`), and memory
 * bounded by the tokens of one top-level dictionary (at most `maxDictionaryTokens`).
 *
 * Image XObjects are streams, and streams are never inside compressed object streams, so every
 * honest image dictionary is in plain bytes here. A width or height given as a reference (`7 0 R`)
 * is resolved when that object is a plain integer outside object streams; otherwise the image is
 * left out. What this scan cannot see (an image drawn inline in a compressed content stream, a
 * file built to mislead it) is still bounded by the engine's memory cap.
 */
export interface PdfImageSize {
  readonly width: number;
  readonly height: number;
}

type Token =
  | { readonly kind: "number"; readonly value: number }
  | { readonly kind: "name"; readonly value: string }
  | { readonly kind: "keyword"; readonly value: string }
  /** A string, an array or a dictionary nested in the one being read: its contents do not matter here. */
  | { readonly kind: "other" };

type Value = number | { readonly ref: number } | undefined;

const maxDictionaryTokens = 4096;
const OTHER: Token = { kind: "other" };

const isWhitespace = (byte: number) => byte === 0x20 || byte === 0x0a || byte === 0x0d || byte === 0x09 || byte === 0x0c || byte === 0x00;
const isDelimiter = (byte: number) =>
  byte === 0x28 ||
  byte === 0x29 ||
  byte === 0x3c ||
  byte === 0x3e ||
  byte === 0x5b ||
  byte === 0x5d ||
  byte === 0x7b ||
  byte === 0x7d ||
  byte === 0x2f ||
  byte === 0x25;
const isRegular = (byte: number | undefined): byte is number => byte !== undefined && !isWhitespace(byte) && !isDelimiter(byte);
const hexDigit = (byte: number | undefined) => {
  if (byte === undefined) return -1;
  if (byte >= 0x30 && byte <= 0x39) return byte - 0x30;
  const lower = byte | 0x20;
  return lower >= 0x61 && lower <= 0x66 ? lower - 0x61 + 10 : -1;
};

/** A regular token's value: a number where it reads as one (`12`, `-3`, `.5`), else a keyword. */
const wordToken = (word: string): Token => {
  let digits = 0;
  let dots = 0;
  for (let i = 0; i < word.length; i++) {
    const c = word.charCodeAt(i);
    if (c >= 0x30 && c <= 0x39) digits++;
    else if (c === 0x2e) dots++;
    else if (!(i === 0 && (c === 0x2b || c === 0x2d))) return { kind: "keyword", value: word };
  }
  return digits > 0 && dots <= 1 ? { kind: "number", value: Number(word) } : { kind: "keyword", value: word };
};

/** The value of `key` in a dictionary's tokens: a direct number, a reference, or undefined. */
const valueOf = (tokens: ReadonlyArray<Token>, key: string): Value | string => {
  for (let at = 0; at < tokens.length - 1; at++) {
    const token = tokens[at]!;
    if (token.kind !== "name" || token.value !== key) continue;
    const [first, second, third] = [tokens[at + 1], tokens[at + 2], tokens[at + 3]];
    if (first?.kind === "number" && second?.kind === "number" && third?.kind === "keyword" && third.value === "R") return { ref: first.value };
    if (first?.kind === "number") return first.value;
    if (first?.kind === "name") return first.value;
    return undefined;
  }
  return undefined;
};

/** The scan's state, one pass over `buffer`. */
interface Scan {
  readonly buffer: Buffer;
  /** Where the scan is. */
  at: number;
  readonly images: Array<{ readonly width: Value; readonly height: Value }>;
  /** Objects whose whole body is one integer, for widths and heights given by reference. */
  readonly integers: Map<number, number>;
  /** The last two tokens outside any dictionary or array: `12 0` before `obj`, `obj 640` before `endobj`. */
  older: Token;
  old: Token;
  objectNumber: number | undefined;
  depth: number;
  /** The tokens of the top-level dictionary being read (undefined when inside an array instead). */
  dictionary: Array<Token> | undefined;
  /** The direct `/Length` of the last top-level dictionary: where its stream's data ends. */
  streamLength: number | undefined;
}

const emit = (scan: Scan, token: Token) => {
  if (scan.depth === 1 && scan.dictionary !== undefined && scan.dictionary.length < maxDictionaryTokens) scan.dictionary.push(token);
  if (scan.depth > 0) return;
  const { older, old } = scan;
  if (token.kind === "keyword" && token.value === "obj") {
    scan.objectNumber = older.kind === "number" && old.kind === "number" ? older.value : undefined;
  }
  if (
    token.kind === "keyword" &&
    token.value === "endobj" &&
    scan.objectNumber !== undefined &&
    older.kind === "keyword" &&
    older.value === "obj" &&
    old.kind === "number"
  ) {
    scan.integers.set(scan.objectNumber, old.value);
  }
  [scan.older, scan.old] = [old, token];
};
/** Whether a number or keyword is read: only at the top level and in a top-level dictionary. */
const wanted = (scan: Scan) => scan.depth === 0 || (scan.depth === 1 && scan.dictionary !== undefined);

const closeDictionary = (scan: Scan) => {
  const tokens = scan.dictionary ?? [];
  scan.dictionary = undefined;
  const length = valueOf(tokens, "Length");
  scan.streamLength = typeof length === "number" ? length : undefined;
  if (valueOf(tokens, "Subtype") === "Image") {
    const [width, height] = [valueOf(tokens, "Width"), valueOf(tokens, "Height")];
    scan.images.push({ width: typeof width === "string" ? undefined : width, height: typeof height === "string" ? undefined : height });
  }
};

/** Past a stream's data: where `/Length` says when `endstream` is there, else at the next `endstream`; the end if none. */
const skipStream = (scan: Scan, from: number): number => {
  const { buffer } = scan;
  let start = from;
  if (buffer[start] === 0x0d) start++;
  if (buffer[start] === 0x0a) start++;
  const length = scan.streamLength;
  scan.streamLength = undefined;
  if (length !== undefined && length >= 0 && start + length <= buffer.length) {
    let end = start + length;
    while (end < buffer.length && isWhitespace(buffer[end]!)) end++;
    if (buffer.toString("latin1", end, end + 9) === "endstream") return end + 9;
  }
  const end = buffer.indexOf("endstream", start, "latin1");
  return end < 0 ? buffer.length : end + 9;
};

/** Past a literal string: balanced parentheses, backslash escapes. */
const literalStringEnd = (buffer: Buffer, from: number): number => {
  let at = from;
  let nesting = 0;
  for (; at < buffer.length; at++) {
    const c = buffer[at];
    if (c === 0x5c) at++;
    else if (c === 0x28) nesting++;
    else if (c === 0x29 && --nesting === 0) break;
  }
  return at + 1;
};

/** A name; #xx is the byte xx. */
const readName = (scan: Scan) => {
  const { buffer } = scan;
  const start = ++scan.at;
  while (isRegular(buffer[scan.at])) scan.at++;
  // Names matter only as a top-level dictionary's keys and values.
  if (scan.depth !== 1 || scan.dictionary === undefined) {
    emit(scan, OTHER);
    return;
  }
  let name = buffer.toString("latin1", start, scan.at);
  if (name.includes("#"))
    name = name.replace(/#([0-9A-Fa-f]{2})/g, (_, hex: string) => String.fromCharCode(hexDigit(hex.charCodeAt(0)) * 16 + hexDigit(hex.charCodeAt(1))));
  emit(scan, { kind: "name", value: name });
};

/** A number or keyword; `stream` at the top level skips the stream's data. */
const readWord = (scan: Scan) => {
  const { buffer } = scan;
  const start = scan.at;
  while (isRegular(buffer[scan.at])) scan.at++;
  if (!wanted(scan)) return;
  const token = wordToken(buffer.toString("latin1", start, scan.at));
  if (token.kind === "keyword" && token.value === "stream" && scan.depth === 0) scan.at = skipStream(scan, scan.at);
  else emit(scan, token);
};

/** One step of the scan: past whitespace, a comment, a string, a delimiter, a name or a word. */
const scanNext = (scan: Scan) => {
  const { buffer } = scan;
  const byte = buffer[scan.at]!;
  if (isWhitespace(byte)) {
    scan.at++;
  } else if (byte === 0x25) {
    // A comment, to the end of its line.
    while (scan.at < buffer.length && buffer[scan.at] !== 0x0a && buffer[scan.at] !== 0x0d) scan.at++;
  } else if (byte === 0x28) {
    scan.at = literalStringEnd(buffer, scan.at);
    emit(scan, OTHER);
  } else if (byte === 0x3c && buffer[scan.at + 1] === 0x3c) {
    scan.at += 2;
    if (scan.depth === 0) scan.dictionary = [];
    else emit(scan, OTHER);
    scan.depth++;
  } else if (byte === 0x3c) {
    // A hex string.
    const end = buffer.indexOf(0x3e, scan.at);
    scan.at = end < 0 ? buffer.length : end + 1;
    emit(scan, OTHER);
  } else if (byte === 0x3e && buffer[scan.at + 1] === 0x3e) {
    scan.at += 2;
    scan.depth = Math.max(0, scan.depth - 1);
    if (scan.depth === 0) {
      closeDictionary(scan);
      emit(scan, OTHER);
    }
  } else if (byte === 0x5b) {
    scan.at++;
    emit(scan, OTHER);
    scan.depth++;
  } else if (byte === 0x5d) {
    scan.at++;
    scan.depth = Math.max(0, scan.depth - 1);
    if (scan.depth === 0) scan.dictionary = undefined;
  } else if (byte === 0x2f) {
    readName(scan);
  } else if (isRegular(byte)) {
    readWord(scan);
  } else {
    scan.at++;
  }
};

/** The images whose width and height are known, references resolved, and positive. */
const knownSizes = ({ images, integers }: Scan): ReadonlyArray<PdfImageSize> => {
  const resolve = (value: Value) => (typeof value === "object" ? integers.get(value.ref) : value);
  return images.flatMap((image) => {
    const [width, height] = [resolve(image.width), resolve(image.height)];
    return width !== undefined && height !== undefined && width > 0 && height > 0 ? [{ width, height }] : [];
  });
};

export const pdfImageSizes = (bytes: Uint8Array): ReadonlyArray<PdfImageSize> => {
  const scan: Scan = {
    buffer: Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength),
    at: 0,
    images: [],
    integers: new Map(),
    older: OTHER,
    old: OTHER,
    objectNumber: undefined,
    depth: 0,
    dictionary: undefined,
    streamLength: undefined,
  };
  while (scan.at < scan.buffer.length) scanNext(scan);
  return knownSizes(scan);
};
