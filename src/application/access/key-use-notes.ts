import { Effect } from "effect";
import type { KeyProjectionShape } from "../../ports/projections.ts";

/** How often a key's use is written down: the "at most once a minute per key". */
const KEY_USE_NOTE_EVERY_MS = 60_000;
const MAX_NOTED_KEYS = 10_000;

/**
 * When each key was last used, for `key list` and the console: written to the key projection at
 * most once a minute per key by each instance, never as an event (one per request would swamp the
 * store). A failed write is dropped: the next minute's note repairs it, and no request should fail
 * for a bookkeeping field. Undefined when nothing is due: the keyed path's common case costs one Map read
 * and no extra step of the fiber.
 */
export const makeKeyUseNotes = (projection: Pick<KeyProjectionShape, "noteKeyUsed">, clock: { readonly now: () => Date }) => {
  const noted = new Map<string, number>();
  return (keyId: string): Effect.Effect<void> | undefined => {
    const now = clock.now().getTime();
    const last = noted.get(keyId);
    if (last !== undefined && now - last < KEY_USE_NOTE_EVERY_MS) return undefined;
    // Re-inserted so the Map's first entry is the one noted longest ago, dropped first.
    noted.delete(keyId);
    noted.set(keyId, now);
    if (noted.size > MAX_NOTED_KEYS) noted.delete(noted.keys().next().value!);
    return Effect.ignore(projection.noteKeyUsed(keyId, new Date(now).toISOString()));
  };
};
