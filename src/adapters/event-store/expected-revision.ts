import { ConcurrencyConflict, type ExpectedRevision } from "../../ports/event-store.ts";

/** The optimistic-concurrency rule every adapter applies: `actual` is the stream's revision now (NO_STREAM if empty). */
export const checkExpectedRevision = (streamName: string, expected: ExpectedRevision, actual: number): ConcurrencyConflict | undefined =>
  expected === "any" || expected === actual ? undefined : new ConcurrencyConflict({ streamName, expected, actual });
