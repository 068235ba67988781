import { Data, Effect } from "effect";
import type { DependencyUnavailable } from "../../ports/errors.ts";
import type { ConcurrencyConflict, EventStoreShape, RecordedEvent, UndecodableEvent } from "../../ports/event-store.ts";
import { canonicalEventLine, type IncrementalHash } from "./event-checksum.ts";

/** How many events a store holds, and the SHA-256 over their canonical lines in global order. */
export interface EventsSummary {
  readonly count: number;
  readonly checksum: string;
}

/** A copy goes into an empty store only: revisions are kept, and events already there would clash or mix in. */
export class TargetStoreNotEmpty extends Data.TaggedError("TargetStoreNotEmpty")<{ readonly firstStreamName: string }> {}

export class CopyVerificationFailed extends Data.TaggedError("CopyVerificationFailed")<{
  readonly copied: EventsSummary;
  readonly target: EventsSummary;
}> {}

export interface CopyOptions {
  readonly sha256: () => IncrementalHash;
  readonly pageSize?: number;
}

/** Visits every event of a store in global order, a page at a time. */
const forEachPage = <E>(
  store: EventStoreShape,
  pageSize: number,
  visit: (page: ReadonlyArray<RecordedEvent>) => Effect.Effect<void, E>,
): Effect.Effect<void, E | DependencyUnavailable | UndecodableEvent> =>
  Effect.gen(function* () {
    let after = 0;
    for (;;) {
      const page = yield* store.readAll({ after, limit: pageSize });
      const last = page.at(-1);
      if (last === undefined) return;
      yield* visit(page);
      after = last.globalPosition;
    }
  });

/** Runs of consecutive events of one stream: each becomes one append, which keeps the global order. */
const streamRuns = (page: ReadonlyArray<RecordedEvent>): ReadonlyArray<ReadonlyArray<RecordedEvent>> => {
  const runs: Array<Array<RecordedEvent>> = [];
  for (const event of page) {
    const run = runs.at(-1);
    if (run !== undefined && run[0]?.streamName === event.streamName) run.push(event);
    else runs.push([event]);
  }
  return runs;
};

export const summarizeEvents = (store: EventStoreShape, options: CopyOptions): Effect.Effect<EventsSummary, DependencyUnavailable | UndecodableEvent> =>
  Effect.gen(function* () {
    const hash = options.sha256();
    let count = 0;
    yield* forEachPage(store, options.pageSize ?? 500, (page) =>
      Effect.sync(() => {
        for (const event of page) hash.update(canonicalEventLine(event));
        count += page.length;
      }),
    );
    return { count, checksum: hash.digest() };
  });

/**
 * Copies every event from one store into an empty one in global order, keeping stream names,
 * revisions, ids, types, data and metadata; then reads the target back and checks that its count
 * and checksum match what was copied. Events appended to `from` while copying are copied too, as
 * long as they arrive before the last page is read.
 */
export const copyAllEvents = (
  from: EventStoreShape,
  to: EventStoreShape,
  options: CopyOptions,
): Effect.Effect<EventsSummary, TargetStoreNotEmpty | CopyVerificationFailed | ConcurrencyConflict | DependencyUnavailable | UndecodableEvent> =>
  Effect.gen(function* () {
    const [existing] = yield* to.readAll({ after: 0, limit: 1 });
    if (existing !== undefined) return yield* new TargetStoreNotEmpty({ firstStreamName: existing.streamName });

    const hash = options.sha256();
    let count = 0;
    yield* forEachPage(from, options.pageSize ?? 500, (page) =>
      Effect.forEach(
        streamRuns(page),
        (run) =>
          to
            .appendToStream(
              run[0]!.streamName,
              run.map((event) => ({ eventId: event.eventId, type: event.type, data: event.data, metadata: event.metadata })),
              // The revision each event had: the target must be exactly where the source was.
              { expectedRevision: run[0]!.streamRevision - 1 },
            )
            .pipe(
              Effect.tap(() =>
                Effect.sync(() => {
                  for (const event of run) hash.update(canonicalEventLine(event));
                  count += run.length;
                }),
              ),
            ),
        { discard: true },
      ),
    );
    const copied = { count, checksum: hash.digest() };

    const target = yield* summarizeEvents(to, options);
    if (target.count !== copied.count || target.checksum !== copied.checksum) return yield* new CopyVerificationFailed({ copied, target });
    return copied;
  });
