import { DiscardPolicy, type StreamConfig } from "@nats-io/jetstream";
import { nanos } from "@nats-io/transport-node";

/**
 * What the event stream keeps. It holds notices only (see event-notice-message.ts), each needed
 * until every durable has taken it: a projection further behind than this catches up from the
 * store at its start, so old notices are worth nothing and a bounded stream loses nothing.
 */
export interface EventStreamLimits {
  /** Notices older than this are removed. */
  readonly maxAgeMs: number;
  /** The oldest notices go first once the stream holds this much. */
  readonly maxBytes: number;
  /** The largest message the stream takes (headers included): a notice is ~150 bytes; a forged or malformed message is refused. */
  readonly maxMessageBytes: number;
}

export const defaultEventStreamLimits: EventStreamLimits = {
  maxAgeMs: 24 * 60 * 60_000,
  maxBytes: 256 * 1024 * 1024,
  maxMessageBytes: 4 * 1024,
};

/** The stream's limits in JetStream's terms (with the duplicate window, which must not exceed the age). */
export const streamLimitsConfig = (limits: EventStreamLimits, duplicateWindowMs: number) =>
  ({
    discard: DiscardPolicy.Old,
    max_age: nanos(limits.maxAgeMs),
    max_bytes: limits.maxBytes,
    max_msg_size: limits.maxMessageBytes,
    duplicate_window: nanos(Math.min(duplicateWindowMs, limits.maxAgeMs)),
  }) satisfies Partial<StreamConfig>;

/** Whether a stream's config (one made by an earlier version, say) differs from these limits. */
export const differsFrom = (config: Partial<StreamConfig>, wanted: ReturnType<typeof streamLimitsConfig>): boolean =>
  (Object.keys(wanted) as Array<keyof typeof wanted>).some((key) => config[key] !== wanted[key]);
