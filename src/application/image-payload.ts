import { Effect } from "effect";
import { ImageTooLarge, InvalidImage } from "../ports/errors.ts";

/**
 * Client images arrive as base64 or as a data URL. The decoded size is known from the text
 * length, so an oversized image is refused before a byte is decoded.
 */
const DATA_URL = /^data:([\w.+-]+\/[\w.+-]+)?(?:;[\w-]+=[\w.+-]+)*;base64,/i;
const BASE64 = /^[A-Za-z0-9+/]*={0,2}$/;
const BASE64URL = /^[A-Za-z0-9_-]*$/;

export const decodeImagePayload = (
  field: string,
  payload: string,
  maxBytes: number,
): Effect.Effect<Uint8Array, InvalidImage | ImageTooLarge> =>
  Effect.suspend((): Effect.Effect<Uint8Array, InvalidImage | ImageTooLarge> => {
    const text = payload.replace(DATA_URL, "").replace(/\s+/g, "");
    if (text.length === 0) return Effect.fail(new InvalidImage({ message: `${field} is empty.` }));
    const padding = text.endsWith("==") ? 2 : text.endsWith("=") ? 1 : 0;
    const decodedBytes = Math.floor((text.length * 3) / 4) - padding;
    if (decodedBytes > maxBytes) {
      return Effect.fail(new ImageTooLarge({ message: `${field} is ${decodedBytes} bytes; the limit is ${maxBytes} bytes.` }));
    }
    const standard = BASE64.test(text) && text.length % 4 === 0;
    if (!standard && !BASE64URL.test(text)) {
      return Effect.fail(new InvalidImage({ message: `${field} is not valid base64.` }));
    }
    return Effect.succeed(new Uint8Array(Buffer.from(text, standard ? "base64" : "base64url")));
  });
