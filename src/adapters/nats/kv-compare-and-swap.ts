import { JetStreamApiCodes, JetStreamApiError } from "@nats-io/jetstream";
import type { KV } from "@nats-io/kv";

/** What a read-decide-write step wants: the value to write (none: leave the key as it is) and its result. */
export interface SwapDecision<A> {
  readonly write: string | undefined;
  readonly result: A;
}

export class SwapContention extends Error {}

const isWrongRevision = (error: unknown) =>
  error instanceof JetStreamApiError &&
  (error.code === JetStreamApiCodes.StreamWrongLastSequence || error.code === JetStreamApiCodes.StreamWrongLastSequenceUnknown);

/**
 * Read a key, decide, and write only if nobody wrote it since the read (KV compare-and-swap on the
 * entry's revision); when someone did, read and decide again. Several processes may race on one
 * key: exactly one write per revision wins, so no decision is based on a stale value.
 */
export const compareAndSwap = async <A>(kv: KV, key: string, decide: (current: string | undefined) => SwapDecision<A>, maxAttempts = 100): Promise<A> => {
  for (let attempt = 0; attempt < maxAttempts; attempt++) {
    const entry = await kv.get(key);
    const live = entry !== null && entry.operation === "PUT";
    const { write, result } = decide(live ? entry.string() : undefined);
    if (write === undefined) return result;
    try {
      // create() also takes a key whose last entry is a delete marker.
      if (entry !== null && live) await kv.update(key, write, entry.revision);
      else await kv.create(key, write);
      return result;
    } catch (error) {
      if (!isWrongRevision(error)) throw error;
    }
  }
  throw new SwapContention(`${maxAttempts} lost races on ${key}`);
};
