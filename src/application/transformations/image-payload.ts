import { Effect } from "effect";
import { ImageTooLarge, InvalidImage } from "../../ports/errors.ts";

/**
 * Client images arrive as base64 (standard or URL-safe, padding optional, MIME line breaks
 * allowed) or as a data URL. The decoded size is known from the text length, so an oversized
 * image is refused before a byte is decoded.
 *
 * A data URL's header is cut at its first comma, looked for only within the first
 * MAX_DATA_URL_HEADER characters, and only that short header meets a regular expression: the
 * work is bounded whatever the client sends (a pattern run over the whole payload once took
 * minutes on a megabyte of "data:AAAA…").
 */
const MAX_DATA_URL_HEADER = 256;
const DATA_URL_HEADER = /^data:(?:[\w.+-]+\/[\w.+-]+)?(?:;[\w-]+=[\w.+-]+)*;base64$/i;

/** The base64 text of a payload, or undefined when it claims to be a data URL and is not a valid one. */
export const base64Text = (payload: string): string | undefined => {
  if (payload.slice(0, 5).toLowerCase() !== "data:") return payload;
  const comma = payload.indexOf(",", 5);
  if (comma < 0 || comma > MAX_DATA_URL_HEADER) return undefined;
  return DATA_URL_HEADER.test(payload.slice(0, comma)) ? payload.slice(comma + 1) : undefined;
};

const unpadded = (text: string) => (text.endsWith("==") ? text.slice(0, -2) : text.endsWith("=") ? text.slice(0, -1) : text);

/**
 * Decodes in native code and checks by length: Buffer's decoder skips characters outside the
 * alphabet, and every skipped character shortens the output, so the text is valid exactly when
 * the bytes are as many as its length promises. (A regular expression over a multi-megabyte
 * string cost a sixth of the request thread; re-encoding to compare, a few milliseconds.)
 */
const decodeExact = (text: string): Buffer | undefined => {
  const body = unpadded(text);
  if (body.length % 4 === 1) return undefined;
  // Node's base64 decoder reads the standard and the URL-safe alphabet alike.
  const bytes = Buffer.from(body, "base64");
  return bytes.length === Math.floor((body.length * 3) / 4) ? bytes : undefined;
};

const tooLarge = (field: string, bytes: number, maxBytes: number) =>
  new ImageTooLarge({ message: `${field} is ${bytes} bytes; the limit is ${maxBytes} bytes.` });

/**
 * Text longer than this is decoded in a turn of the event loop of its own: a 12 MiB payload takes
 * 8-17 ms to decode, and run on from the body's parse in one turn, the two held every other
 * request for 25-40 ms.
 */
const OWN_TURN_CHARS = 1024 * 1024;

/** A step that runs in a turn of its own when `text` is long. */
const inOwnTurn = <A, E>(text: string, step: () => Effect.Effect<A, E>): Effect.Effect<A, E> =>
  text.length > OWN_TURN_CHARS ? Effect.andThen(Effect.yieldNow, Effect.suspend(step)) : Effect.suspend(step);

export const decodeImagePayload = (field: string, payload: string, maxBytes: number): Effect.Effect<Uint8Array, InvalidImage | ImageTooLarge> =>
  Effect.suspend((): Effect.Effect<Uint8Array, InvalidImage | ImageTooLarge> => {
    const text = base64Text(payload);
    if (text === undefined) return Effect.fail(new InvalidImage({ message: `${field} is a data URL without a valid "data:<type>;base64," header.` }));
    if (text.length === 0) return Effect.fail(new InvalidImage({ message: `${field} is empty.` }));
    // An upper bound of the decoded size: line breaks (3% of MIME base64) only make it smaller.
    const atMost = Math.floor((unpadded(text).length * 3) / 4);
    if (atMost > maxBytes * 1.03 + 4) return Effect.fail(tooLarge(field, atMost, maxBytes));
    const checked = (bytes: Buffer | undefined): Effect.Effect<Uint8Array, InvalidImage | ImageTooLarge> => {
      if (!bytes) return Effect.fail(new InvalidImage({ message: `${field} is not valid base64.` }));
      if (bytes.length > maxBytes) return Effect.fail(tooLarge(field, bytes.length, maxBytes));
      return Effect.succeed(new Uint8Array(bytes.buffer, bytes.byteOffset, bytes.byteLength));
    };
    // MIME base64 (with line breaks) is decoded a second time without them, in a turn of its own too.
    return inOwnTurn(text, () => {
      const bytes = decodeExact(text);
      if (bytes !== undefined || !/\s/.test(text)) return checked(bytes);
      return inOwnTurn(text, () => checked(decodeExact(text.replace(/\s+/g, ""))));
    });
  });
