import type { OutputFormat } from "./template-catalog/template.ts";

/**
 * Which representation of a stored result a result URL serves. A JPEG result is a photo without
 * transparency (every JPEG template, and try-on composites): the fetching browser's Accept header
 * may take AVIF or WebP instead, both smaller at the same look. PNG, WebP and AVIF results were
 * made so on purpose (transparency, a format template) and keep their format unless the URL names
 * another with ?format=.
 */
export const NEGOTIATED_FORMATS = ["avif", "webp", "jpeg"] as const satisfies ReadonlyArray<OutputFormat>;
export type NegotiatedFormat = (typeof NEGOTIATED_FORMATS)[number];

/** Every format ?format= may name, whatever the result's own. */
export const URL_FORMATS = ["avif", "webp", "jpeg", "png"] as const satisfies ReadonlyArray<OutputFormat>;

/** Whether a result made in `format` is served by Accept (and its responses say Vary: Accept). */
export const negotiatesFormat = (format: OutputFormat): boolean => format === "jpeg";

export const MEDIA_TYPES: Readonly<Record<OutputFormat, string>> = {
  jpeg: "image/jpeg",
  png: "image/png",
  webp: "image/webp",
  avif: "image/avif",
};

/** One media range of an Accept header, lower-cased, with its weight. */
export interface MediaRange {
  readonly type: string;
  readonly subtype: string;
  readonly q: number;
}

const isSpace = (c: string) => c === " " || c === "\t";

/** RFC 9110 qvalue: 0 to 1 with up to three decimals; anything else is malformed (the range is ignored). */
const parseQ = (text: string): number | undefined => {
  if (!/^(?:0(?:\.\d{0,3})?|1(?:\.0{0,3})?)$/.test(text)) return undefined;
  return Number(text);
};

/** Trims spaces and tabs from both ends of s[start, end), returning the slice. */
const trimmed = (s: string, start: number, end: number): string => {
  let from = start;
  let to = end;
  while (from < to && isSpace(s[from]!)) from += 1;
  while (to > from && isSpace(s[to - 1]!)) to -= 1;
  return s.slice(from, to);
};

/** The first index of `c` in s[start, end), or `end`: never looks past `end`, so scans add up to one pass. */
const indexIn = (s: string, c: string, start: number, end: number): number => {
  let i = start;
  while (i < end && s[i] !== c) i += 1;
  return i;
};

/** One element of the list, s[start, end): `type/subtype *( ";" parameter )`; undefined when malformed. */
const parseRange = (s: string, start: number, end: number): MediaRange | undefined => {
  const semicolon = indexIn(s, ";", start, end);
  const mediaRange = trimmed(s, start, semicolon);
  const slash = mediaRange.indexOf("/");
  if (slash <= 0 || slash === mediaRange.length - 1) return undefined;
  const type = mediaRange.slice(0, slash).toLowerCase();
  const subtype = mediaRange.slice(slash + 1).toLowerCase();
  if (type === "*" && subtype !== "*") return undefined;
  let q = 1;
  for (let at = semicolon; at < end;) {
    const next = indexIn(s, ";", at + 1, end);
    const equals = indexIn(s, "=", at + 1, next);
    if (equals < next && trimmed(s, at + 1, equals).toLowerCase() === "q") {
      const weight = parseQ(trimmed(s, equals + 1, next));
      if (weight === undefined) return undefined;
      q = weight;
    }
    at = next;
  }
  return { type, subtype, q };
};

/** More ranges than any browser sends; later ones are ignored, so a hostile header costs no more memory. */
export const MAX_MEDIA_RANGES = 64;

/**
 * The media ranges of an Accept header, in order (the first MAX_MEDIA_RANGES). One pass over the
 * text splitting on commas outside quoted strings, each element read in place by index: linear in
 * the header's length, no regular expression over the header. Malformed elements are skipped.
 */
export const parseAccept = (header: string): ReadonlyArray<MediaRange> => {
  const ranges: Array<MediaRange> = [];
  let start = 0;
  let quoted = false;
  for (let i = 0; i <= header.length && ranges.length < MAX_MEDIA_RANGES; i += 1) {
    const c = header[i];
    if (quoted) {
      if (c === "\\") i += 1;
      else if (c === '"') quoted = false;
      continue;
    }
    if (c === '"') quoted = true;
    else if (i === header.length || c === ",") {
      const range = parseRange(header, start, i);
      if (range !== undefined) ranges.push(range);
      start = i + 1;
    }
  }
  return ranges;
};

/**
 * The weight the header gives `format`: that of the most specific range naming it. AVIF and WebP
 * count only when named (image/avif, image/webp): a wildcard says nothing of what a browser
 * decodes, so `*\/*` and `image/*` accept JPEG alone, which every browser shows.
 */
const weightOf = (ranges: ReadonlyArray<MediaRange>, format: NegotiatedFormat): number => {
  let exact: number | undefined;
  let images: number | undefined;
  let any: number | undefined;
  for (const { type, subtype, q } of ranges) {
    if (type === "image" && subtype === format) exact = Math.max(exact ?? 0, q);
    else if (type === "image" && subtype === "*") images = Math.max(images ?? 0, q);
    else if (type === "*") any = Math.max(any ?? 0, q);
  }
  if (exact !== undefined || format !== "jpeg") return exact ?? 0;
  return images ?? any ?? 0;
};

/**
 * The format a negotiating result is served in for this Accept header: the highest weight wins,
 * ties go to our preference (AVIF, then WebP, then JPEG, the order of NEGOTIATED_FORMATS). No
 * header, or one that accepts none of them, gets JPEG, the result's own format: a browser that
 * sends nonsense still gets an image it shows (RFC 9110 lets a server disregard Accept).
 */
export const negotiateFormat = (accept: string | undefined): NegotiatedFormat => {
  if (accept === undefined) return "jpeg";
  const ranges = parseAccept(accept);
  let best: NegotiatedFormat = "jpeg";
  let bestWeight = 0;
  for (const format of NEGOTIATED_FORMATS) {
    const weight = weightOf(ranges, format);
    if (weight > bestWeight) {
      best = format;
      bestWeight = weight;
    }
  }
  return best;
};
