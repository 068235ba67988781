import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Effect, Exit, Fiber, Layer } from "effect";
import { afterEach, describe, expect, it } from "vitest";
import { sqliteEventStoreLayer } from "../../src/adapters/event-store/sqlite-event-store.ts";
import { cryptoIds } from "../../src/adapters/ids/crypto-ids.ts";
import { kvRateLimiterLayer } from "../../src/adapters/nats/kv-rate-limiter.ts";
import { natsConnectionLayer } from "../../src/adapters/nats/nats-connection.ts";
import { sqliteProjectionsLayer } from "../../src/adapters/projections/sqlite-projections.ts";
import { inMemoryRateLimiterLayer } from "../../src/adapters/rate-limit/in-memory-rate-limiter.ts";
import { argon2PasswordHasher } from "../../src/adapters/security/argon2-password-hasher.ts";
import { hmacSecretHasher } from "../../src/adapters/security/hmac-secret-hasher.ts";
import { openAccount } from "../../src/application/access/accounts.ts";
import { acceptInvitation, issueInvitation, signIn } from "../../src/application/access/holder-access.ts";
import { catchUpFromStore } from "../../src/application/event-sourcing/projection-runner.ts";
import { inProcessStreamLocks } from "../../src/application/event-sourcing/stream-locks.ts";
import { lruStreamStateCache } from "../../src/application/event-sourcing/stream-state-cache.ts";
import { defaultServiceSettings, ServiceSettings } from "../../src/application/settings.ts";
import { type Clock, manualClock } from "../../src/ports/clock.ts";
import { PasswordHasher } from "../../src/ports/password-hasher.ts";
import { KeyProjection } from "../../src/ports/projections.ts";
import type { RateLimiter } from "../../src/ports/rate-limiter.ts";
import { dropNatsNamespace, NATS_URL, testNamespace } from "../support/nats.ts";

/**
 * Issue 24, case 5: sign-ins sent at once must not check more passwords than the throttle allows.
 * The real argon2 hasher, counted; a real SQLite store and key projection; each rate limiter adapter.
 */
const PASSWORD = "correct horse battery staple";
const OPERATOR = { kind: "operator", tool: "itsctl", user: "test", host: "test" } as const;

const directories: Array<string> = [];
afterEach(() => directories.splice(0).forEach((directory) => rmSync(directory, { recursive: true, force: true })));

/** Every password check that reaches argon2, counted as it starts. */
const countedArgon2 = (counter: { checks: number }) =>
  Layer.effect(PasswordHasher)(
    Effect.map(PasswordHasher, (hasher) => ({
      hash: hasher.hash,
      verify: (password: string, storedHash: string | null) =>
        Effect.suspend(() => {
          counter.checks++;
          return hasher.verify(password, storedHash);
        }),
    })),
  ).pipe(Layer.provide(argon2PasswordHasher));

const limiters: ReadonlyArray<{ readonly name: string; readonly layer: (clock: Layer.Layer<Clock>) => Layer.Layer<RateLimiter, unknown> }> = [
  { name: "in-memory", layer: (clock) => inMemoryRateLimiterLayer().pipe(Layer.provide(clock)) },
  {
    name: "nats-kv",
    layer: (clock) =>
      Layer.unwrap(
        Effect.acquireRelease(Effect.sync(testNamespace), (namespace) => Effect.promise(() => dropNatsNamespace(namespace))).pipe(
          Effect.map((namespace) => kvRateLimiterLayer({ namespace }).pipe(Layer.provide(Layer.merge(natsConnectionLayer({ servers: NATS_URL }), clock)))),
        ),
      ),
  },
];

describe.each(limiters)("console sign-in throttle ($name rate limiter)", ({ layer }) => {
  it("checks at most 5 of 40 wrong passwords sent at once; the right one, sent while they run, is refused until the window passes", async () => {
    const directory = mkdtempSync(join(tmpdir(), "its-sign-in-"));
    directories.push(directory);
    const clock = manualClock(new Date("2026-11-25T10:00:00.000Z"));
    const counter = { checks: 0 };
    const services = Layer.mergeAll(
      sqliteEventStoreLayer({ path: join(directory, "events.sqlite") }),
      sqliteProjectionsLayer({ path: join(directory, "projections.sqlite") }),
      clock.layer,
      cryptoIds,
      hmacSecretHasher(Buffer.alloc(32, 7)),
      lruStreamStateCache(),
      inProcessStreamLocks,
      Layer.succeed(ServiceSettings)(defaultServiceSettings),
      countedArgon2(counter),
      layer(clock.layer),
    );
    const attempt = (password: string) => Effect.exit(signIn(email, password, "10.0.0.1"));
    const email = "holder@example.com";

    await Effect.runPromise(
      Effect.scoped(
        Effect.gen(function* () {
          const { id } = yield* openAccount({ email, name: "Holder", plan: "free" }, OPERATOR);
          const invitation = yield* issueInvitation(id, OPERATOR);
          yield* acceptInvitation(invitation.token, PASSWORD, PASSWORD);
          yield* catchUpFromStore(yield* KeyProjection);
          counter.checks = 0;

          const wrong = yield* Effect.forkChild(
            Effect.forEach(
              Array.from({ length: 40 }, (_, i) => i),
              (i) => attempt(`wrong password ${i}`),
              { concurrency: "unbounded" },
            ),
          );
          // The right password arrives while the first wrong ones are still in argon2.
          while (counter.checks < 5) yield* Effect.sleep("1 millis");
          const right = yield* attempt(PASSWORD);
          const failures = (yield* Fiber.join(wrong)).map((exit) => (Exit.isFailure(exit) ? exit.cause.reasons.map(String).join() : "signed in"));

          expect(counter.checks).toBe(5);
          expect(failures.filter((failure) => failure.includes("SignInFailed"))).toHaveLength(5);
          expect(failures.filter((failure) => failure.includes("SignInThrottled"))).toHaveLength(35);
          expect(Exit.isFailure(right) && String(right.cause.reasons[0])).toContain("SignInThrottled");

          // One token back every 12 s (5 a minute): refused just before, signed in at it; a success costs nothing.
          clock.advance(11_000);
          expect(Exit.isFailure(yield* attempt(PASSWORD))).toBe(true);
          clock.advance(1_000);
          expect(Exit.isSuccess(yield* attempt(PASSWORD))).toBe(true);
          expect(Exit.isSuccess(yield* attempt(PASSWORD))).toBe(true);
          expect(counter.checks).toBe(7);
        }),
      ).pipe(Effect.provide(services)),
    );
  });
});
