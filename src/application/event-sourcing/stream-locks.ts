import { Context, Deferred, Effect, Exit, Layer, Semaphore } from "effect";

/**
 * Turns per stream within this process, and what waits for a turn goes together. Concurrent
 * requests of one account all append to its quota ledger; left to race, each loser re-reads and
 * retries, and on a networked store the losers pile up (the contention bench: ~7 lost races per
 * append with 8 writers on PostgreSQL, requests giving up after 100). Taking turns, this process
 * never races itself; other processes still do, and the expected revision settles those. And since
 * one stream's appends follow each other, each waiting for its commit, a turn takes every item that
 * waits for the stream by then: the commands are decided one after the other, as before, and their
 * events appended at once, so that one commit carries them all (command-handler.ts).
 */
export interface StreamLocksShape {
  /**
   * Runs `item` in `key`'s turn, through `run` together with the items that wait for it by then;
   * `run` answers each item in order, or fails (or dies) for all. Every caller on one key passes
   * the same `run`: the key names what the items are.
   */
  readonly together: <I, O, E, R>(key: string, item: I, run: (items: ReadonlyArray<I>) => Effect.Effect<ReadonlyArray<O>, E, R>) => Effect.Effect<O, E, R>;
}

export class StreamLocks extends Context.Service<StreamLocks, StreamLocksShape>()("StreamLocks") {}

/** At most this many items go in one turn, so one append stays a modest batch. */
const MOST_TOGETHER = 64;

interface Waiting {
  readonly item: unknown;
  readonly answer: Deferred.Deferred<unknown, unknown>;
}

interface Turn {
  readonly semaphore: Semaphore.Semaphore;
  readonly waiting: Array<Waiting>;
  users: number;
}

/** A stream's turn lives while someone holds or awaits it, so the map holds only busy streams. */
export const inProcessStreamLocks = Layer.sync(StreamLocks)(() => {
  const turns = new Map<string, Turn>();
  return {
    together: <I, O, E, R>(key: string, item: I, run: (items: ReadonlyArray<I>) => Effect.Effect<ReadonlyArray<O>, E, R>) =>
      Effect.suspend(() => {
        let turn = turns.get(key);
        if (turn === undefined) turns.set(key, (turn = { semaphore: Semaphore.makeUnsafe(1), waiting: [], users: 0 }));
        const held = turn;
        held.users++;
        const mine: Waiting = { item, answer: Deferred.makeUnsafe<unknown, unknown>() };
        held.waiting.push(mine);
        // Whoever gets the turn answers everything waiting, its own item included (perhaps already
        // answered by an earlier turn). Uninterruptible: the others' answers depend on it.
        const takeTurn = Effect.gen(function* () {
          while (!Deferred.isDoneUnsafe(mine.answer)) {
            const taken = held.waiting.splice(0, MOST_TOGETHER);
            const exit = yield* Effect.exit(run(taken.map((waiting) => waiting.item as I)));
            taken.forEach((waiting, i) =>
              Deferred.doneUnsafe(
                waiting.answer,
                Exit.map(exit, (answers) => answers[i]),
              ),
            );
          }
        }).pipe(Effect.uninterruptible);
        return held.semaphore.withPermit(takeTurn).pipe(
          Effect.andThen(Deferred.await(mine.answer) as Effect.Effect<O, E>),
          // Given up while waiting: its item is not run by a later turn either.
          Effect.onInterrupt(() =>
            Effect.sync(() => {
              const at = held.waiting.indexOf(mine);
              if (at >= 0) held.waiting.splice(at, 1);
            }),
          ),
          Effect.ensuring(
            Effect.sync(() => {
              if (--held.users === 0) turns.delete(key);
            }),
          ),
        );
      }),
  };
});
