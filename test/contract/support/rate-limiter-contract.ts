import { randomUUID } from "node:crypto";
import { Context, Effect, Layer, type Scope } from "effect";
import { describe, expect, it } from "vitest";
import { type Clock, manualClock } from "../../../src/ports/clock.ts";
import { RateLimiter, type RateLimiterShape } from "../../../src/ports/rate-limiter.ts";

/**
 * One adapter under contract. `storage` makes fresh bucket storage for one test; each `open` is a
 * limiter on it, as another instance of the service would be, reading time from `clock`.
 */
export interface RateLimiterUnderContract {
  readonly name: string;
  /** Why the suite cannot run here (its server is absent), else undefined. */
  readonly skip?: string | undefined;
  readonly storage: Effect.Effect<
    { readonly open: (clock: Layer.Layer<Clock>) => Effect.Effect<RateLimiterShape, unknown, Scope.Scope> },
    unknown,
    Scope.Scope
  >;
}

export const instanceOf = <E>(layer: Layer.Layer<RateLimiter, E>): Effect.Effect<RateLimiterShape, E, Scope.Scope> =>
  Layer.build(layer).pipe(Effect.map((context) => Context.get(context, RateLimiter)));

const policy = { burst: 15, perMinute: 10 };

export const rateLimiterContract = (target: RateLimiterUnderContract) =>
  describe.skipIf(target.skip !== undefined)(`RateLimiter contract: ${target.name}`, () => {
    const withLimiters = <A>(
      count: number,
      body: (
        limiters: ReadonlyArray<RateLimiterShape>,
        clock: ReturnType<typeof manualClock>,
        key: (name: string) => string,
      ) => Effect.Effect<A, unknown, Scope.Scope>,
    ) => {
      const suffix = randomUUID().slice(0, 8);
      const clock = manualClock(new Date("2026-11-14T10:00:00Z"));
      return Effect.runPromise(
        Effect.scoped(
          Effect.gen(function* () {
            const storage = yield* target.storage;
            const limiters: Array<RateLimiterShape> = [];
            for (let i = 0; i < count; i++) limiters.push(yield* storage.open(clock.layer));
            return yield* body(limiters, clock, (name) => `${name}:${suffix}`);
          }),
        ),
      );
    };

    it("grants the burst with a falling remaining count, then refuses with a retry delay", () =>
      withLimiters(1, ([limiter], _clock, key) =>
        Effect.gen(function* () {
          const decisions = [];
          for (let i = 0; i < 16; i++) decisions.push(yield* limiter!.take(key("key"), policy));
          expect(decisions.map((d) => d.allowed)).toEqual([...Array(15).fill(true), false]);
          expect(decisions.slice(0, 15).map((d) => d.remaining)).toEqual(Array.from({ length: 15 }, (_, i) => 14 - i));
          expect(decisions[15]).toMatchObject({ allowed: false, remaining: 0, retryAfterSeconds: 6, resetSeconds: 90 });
        }),
      ));

    it("refills at the policy's rate and is full again after a long pause", () =>
      withLimiters(1, ([limiter], clock, key) =>
        Effect.gen(function* () {
          for (let i = 0; i < 15; i++) yield* limiter!.take(key("key"), policy);
          clock.advance(5_999);
          expect((yield* limiter!.take(key("key"), policy)).allowed).toBe(false);
          clock.advance(1);
          expect((yield* limiter!.take(key("key"), policy)).allowed).toBe(true);
          expect((yield* limiter!.take(key("key"), policy)).allowed).toBe(false);
          clock.advance(10 * 60_000);
          expect(yield* limiter!.take(key("key"), policy)).toMatchObject({ allowed: true, remaining: 14 });
        }),
      ));

    it("peeks at what a take would decide, on any instance, without taking a token", () =>
      withLimiters(2, ([first, second], _clock, key) =>
        Effect.gen(function* () {
          expect(yield* first!.peek(key("peeked"), policy)).toMatchObject({ allowed: true, remaining: 14 });
          for (let i = 0; i < 3; i++) expect((yield* second!.peek(key("peeked"), policy)).allowed).toBe(true);
          expect(yield* first!.take(key("peeked"), policy)).toMatchObject({ allowed: true, remaining: 14 });
          for (let i = 0; i < 14; i++) yield* first!.take(key("peeked"), policy);
          expect(yield* second!.peek(key("peeked"), policy)).toMatchObject({ allowed: false, retryAfterSeconds: 6 });
        }),
      ));

    it("takes back a token it was given, on any instance, never past the burst", () =>
      withLimiters(2, ([first, second], _clock, key) =>
        Effect.gen(function* () {
          yield* second!.giveBack(key("untouched"), policy);
          expect(yield* first!.take(key("untouched"), policy)).toMatchObject({ allowed: true, remaining: 14 });
          for (let i = 0; i < 15; i++) yield* first!.take(key("emptied"), policy);
          expect((yield* first!.take(key("emptied"), policy)).allowed).toBe(false);
          yield* second!.giveBack(key("emptied"), policy);
          expect(yield* first!.take(key("emptied"), policy)).toMatchObject({ allowed: true, remaining: 0 });
          expect((yield* second!.take(key("emptied"), policy)).allowed).toBe(false);
        }),
      ));

    it("counts every token given back by concurrent requests on several instances", () =>
      withLimiters(2, (limiters, _clock, key) =>
        Effect.gen(function* () {
          for (let i = 0; i < 15; i++) yield* limiters[0]!.take(key("returned"), policy);
          yield* Effect.forEach(
            Array.from({ length: 10 }, (_, i) => i),
            (i) => limiters[i % 2]!.giveBack(key("returned"), policy),
            { concurrency: "unbounded" },
          );
          const decisions = yield* Effect.forEach(
            Array.from({ length: 12 }, (_, i) => i),
            (i) => limiters[i % 2]!.take(key("returned"), policy),
            { concurrency: "unbounded" },
          );
          expect(decisions.filter((d) => d.allowed)).toHaveLength(10);
        }),
      ));

    it("keeps each key's bucket apart, whatever characters the key holds", () =>
      withLimiters(1, ([limiter], _clock, key) =>
        Effect.gen(function* () {
          for (let i = 0; i < 15; i++) yield* limiter!.take(key("key:a"), policy);
          expect((yield* limiter!.take(key("key:a"), policy)).allowed).toBe(false);
          expect(yield* limiter!.take(key("key:b"), policy)).toMatchObject({ allowed: true, remaining: 14 });
          expect(yield* limiter!.take(key("auth-failures:::ffff:10.0.0.1"), { burst: 2, perMinute: 1 })).toMatchObject({ allowed: true, remaining: 1 });
        }),
      ));

    it("enforces one rate for a key across instances and concurrent requests", () =>
      withLimiters(2, (limiters, _clock, key) =>
        Effect.gen(function* () {
          const decisions = yield* Effect.forEach(
            Array.from({ length: 40 }, (_, i) => i),
            (i) => limiters[i % 2]!.take(key("shared"), policy),
            { concurrency: "unbounded" },
          );
          expect(decisions.filter((d) => d.allowed)).toHaveLength(15);
          expect(
            decisions
              .filter((d) => d.allowed)
              .map((d) => d.remaining)
              .sort((a, b) => a - b),
          ).toEqual(Array.from({ length: 15 }, (_, i) => i));
        }),
      ));
  });
