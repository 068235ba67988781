import { Effect } from "effect";
import { Clock } from "../../ports/clock.ts";
import type { RenderedImage } from "../../ports/engines/image.ts";
import { Ids } from "../../ports/ids.ts";
import { ResultStore } from "../../ports/result-store.ts";
import { ServiceSettings } from "../settings.ts";

/** Keeps result bytes for the configured time; the HTTP adapter turns the id into a signed URL. */
export const storeBytes = (bytes: Uint8Array, contentType: string) =>
  Effect.gen(function* () {
    const resultId = (yield* Ids).uuid();
    const expiresAt = new Date((yield* Clock).now().getTime() + (yield* ServiceSettings).resultTtlMs);
    yield* (yield* ResultStore).put({ resultId, bytes, contentType, expiresAt });
    return { resultId, expiresAt };
  });

/** Keeps a rendered image, with what the audit trail records of it. */
export const storeResult = (image: RenderedImage) =>
  Effect.map(storeBytes(image.bytes, image.contentType), ({ resultId, expiresAt }) => ({
    resultId,
    expiresAt,
    /** What the audit trail records of the result. */
    output: { resultId, format: image.format, width: String(image.width), height: String(image.height), bytes: String(image.bytes.byteLength) },
  }));
