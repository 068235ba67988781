import { randomUUID } from "node:crypto";
import { Context, Deferred, Effect, Fiber, Layer, Option, type Scope, Stream } from "effect";
import { describe, expect, it } from "vitest";
import { DependencyUnavailable } from "../../../src/ports/errors.ts";
import type { JsonObject, RecordedEvent } from "../../../src/ports/event-store.ts";
import {
  InvalidJobCursor,
  JobProjection,
  type JobProjectionShape,
  KeyProjection,
  type KeyProjectionShape,
  RECENT_REQUESTS_KEPT,
  UsageProjection,
  type UsageProjectionShape,
} from "../../../src/ports/projections.ts";

/**
 * The projection ports' contract. `storage` makes fresh storage for one test; each `open` is an
 * adapter instance on it, as another process would open it.
 */
export interface Projections {
  readonly usage: UsageProjectionShape;
  readonly keys: KeyProjectionShape;
  readonly jobs: JobProjectionShape;
}

export interface ProjectionsUnderContract {
  readonly name: string;
  readonly storage: Effect.Effect<{ readonly open: Effect.Effect<Projections, unknown, Scope.Scope> }, unknown, Scope.Scope>;
}

/** Events as the store would record them, with increasing global positions. */
const history = () => {
  let position = 0;
  const event = (streamName: string, type: string, data: JsonObject): RecordedEvent => {
    position++;
    return { eventId: randomUUID(), streamName, streamRevision: 0, globalPosition: position, type, data, metadata: {}, recordedAt: "2026-11-14T10:00:00.000Z" };
  };
  const at = "2026-11-14T10:00:00.000Z";
  return {
    opened: (accountId: string, plan = "free") =>
      event(`account-${accountId}`, "AccountOpened", { accountId, email: `${accountId}@example.com`, name: "N", plan, at }),
    planChanged: (accountId: string, from: string, to: string) => event(`account-${accountId}`, "AccountPlanChanged", { accountId, from, to, at }),
    issued: (accountId: string, keyId: string, name = "k") =>
      event(`account-${accountId}`, "ApiKeyIssued", { accountId, keyId, name, secretHash: `hash-${keyId}`, at }),
    revoked: (accountId: string, keyId: string) => event(`account-${accountId}`, "ApiKeyRevoked", { accountId, keyId, at: "2026-11-15T00:00:00.000Z" }),
    // Schema version 2: with restrictions (version 1, above, has none).
    restricted: (accountId: string, keyId: string, restrictions: JsonObject) => ({
      ...event(`account-${accountId}`, "ApiKeyIssued", { accountId, keyId, name: "r", secretHash: `hash-${keyId}`, restrictions, at }),
      metadata: { schemaVersion: 2 },
    }),
    rolled: (accountId: string, keyId: string, newKeyId: string, restrictions: JsonObject, oldKeyExpiresAt: string) =>
      event(`account-${accountId}`, "ApiKeyRolled", {
        accountId,
        keyId,
        newKeyId,
        name: "r",
        secretHash: `hash-${newKeyId}`,
        restrictions,
        oldKeyExpiresAt,
        at,
      }),
    reserved: (accountId: string, requestId: string, keyId: string, operation = "generate", period = "2026-11") =>
      event(`quota-${accountId}-${period}`, "QuotaReserved", { requestId, keyId, operation, accountId, period, limit: 50, expiresAt: at, at }),
    refused: (accountId: string, requestId: string, keyId: string, operation = "generate", period = "2026-11") =>
      event(`quota-${accountId}-${period}`, "QuotaReservationRefused", { requestId, keyId, operation, accountId, period, limit: 50, used: 50, at }),
    committed: (accountId: string, requestId: string, period = "2026-11") => event(`quota-${accountId}-${period}`, "QuotaCommitted", { requestId, at }),
    released: (accountId: string, requestId: string, period = "2026-11") =>
      event(`quota-${accountId}-${period}`, "QuotaReleased", { requestId, reason: "InvalidImage", at }),
    other: (streamName: string) => event(streamName, "TransformationRequested", { at }),
    jobAccepted: (accountId: string, jobId: string, acceptedAt: string, units = 1) =>
      event(`job-${jobId}`, "JobAccepted", {
        jobId,
        accountId,
        keyId: "k1",
        operation: "generate",
        requestId: `req-${jobId}`,
        units,
        inputRef: `input-${jobId}`,
        inputSha256: "0".repeat(64),
        expiresAt: "2026-12-14T10:00:00.000Z",
        at: acceptedAt,
      }),
    jobStarted: (accountId: string, jobId: string, leaseUntil: string, attempt = 1) =>
      event(`job-${jobId}`, "JobStarted", { jobId, accountId, attempt, worker: "w1", leaseUntil, at: "2026-11-14T10:01:00.000Z" }),
    jobProgressed: (accountId: string, jobId: string, done: number, total: number, leaseUntil: string) =>
      event(`job-${jobId}`, "JobProgressed", { jobId, accountId, done, total, leaseUntil, at: "2026-11-14T10:02:00.000Z" }),
    jobSucceeded: (accountId: string, jobId: string) =>
      event(`job-${jobId}`, "JobSucceeded", {
        jobId,
        accountId,
        operation: "generate",
        resultRef: `result-${jobId}`,
        resultSha256: "1".repeat(64),
        at: "2026-11-14T10:03:00.000Z",
      }),
    jobFailed: (accountId: string, jobId: string, code: string) =>
      event(`job-${jobId}`, "JobFailed", { jobId, accountId, operation: "generate", code, message: "m", at: "2026-11-14T10:04:00.000Z" }),
  };
};

const usageOf = (usage: UsageProjectionShape, accountId: string) =>
  usage.usageOf(accountId).pipe(
    Effect.map(({ value }) =>
      value.map(({ period, operation, keyId, reserved, committed, released, refused }) => ({
        period,
        operation,
        keyId,
        reserved,
        committed,
        released,
        refused,
      })),
    ),
  );

export const projectionsContract = (target: ProjectionsUnderContract) =>
  describe(`Projections contract: ${target.name}`, () => {
    const withProjections = <A>(count: number, body: (instances: ReadonlyArray<Projections>) => Effect.Effect<A, unknown, Scope.Scope>) =>
      Effect.runPromise(
        Effect.scoped(
          Effect.gen(function* () {
            const storage = yield* target.storage;
            const instances: Array<Projections> = [];
            for (let i = 0; i < count; i++) instances.push(yield* storage.open);
            return yield* body(instances);
          }),
        ),
      );
    const withProjection = <A>(body: (instance: Projections) => Effect.Effect<A, unknown, Scope.Scope>) => withProjections(1, ([instance]) => body(instance!));

    it("counts usage per account, month, operation and key, attributing commits and releases to their reservation", () =>
      withProjection(({ usage }) =>
        Effect.gen(function* () {
          const h = history();
          const events = [
            h.reserved("a", "r1", "k1"),
            h.reserved("a", "r2", "k2", "ocr"),
            h.committed("a", "r1"),
            h.released("a", "r2"),
            h.refused("a", "r3", "k1"),
            h.reserved("a", "r4", "k1", "generate", "2026-12"),
            h.committed("a", "r4", "2026-12"),
            h.reserved("a", "r5", "k1"),
            h.committed("a", "ghost"),
            h.reserved("b", "r6", "k9"),
            h.committed("b", "r6"),
          ];
          yield* usage.apply(events);
          expect(yield* usageOf(usage, "a")).toEqual([
            { period: "2026-11", operation: "generate", keyId: "k1", reserved: 2, committed: 1, released: 0, refused: 1 },
            { period: "2026-11", operation: "ocr", keyId: "k2", reserved: 1, committed: 0, released: 1, refused: 0 },
            { period: "2026-12", operation: "generate", keyId: "k1", reserved: 1, committed: 1, released: 0, refused: 0 },
          ]);
          expect((yield* usage.usageOf("a")).position).toBe(events.at(-1)!.globalPosition);
          expect(yield* usage.position).toBe(events.at(-1)!.globalPosition);
          expect(yield* usageOf(usage, "nobody")).toEqual([]);
        }),
      ));

    it("is idempotent: a redelivered or older event changes nothing; another category only moves the position", () =>
      withProjection(({ usage }) =>
        Effect.gen(function* () {
          const h = history();
          const first = [h.reserved("a", "r1", "k1"), h.committed("a", "r1")];
          const later = [h.other("transformation-x"), h.reserved("a", "r2", "k1"), h.committed("a", "r2"), h.other("account-z")];
          yield* usage.apply(first);
          yield* usage.apply(first);
          yield* Effect.forEach(later, (event) => usage.apply([event]));
          yield* Effect.forEach([...first, ...later], (event) => usage.apply([event]));
          yield* usage.apply([...first, ...later]);
          expect(yield* usageOf(usage, "a")).toEqual([
            { period: "2026-11", operation: "generate", keyId: "k1", reserved: 2, committed: 2, released: 0, refused: 0 },
          ]);
          expect(yield* usage.position).toBe(later.at(-1)!.globalPosition);
        }),
      ));

    it("keeps the console's view of usage: transformations per day and operation, the newest requests, each key's last use", () =>
      withProjection(({ usage }) =>
        Effect.gen(function* () {
          const h = history();
          yield* usage.apply([
            h.reserved("a", "r1", "k1"),
            h.reserved("a", "r2", "k2", "ocr"),
            h.committed("a", "r1"),
            h.released("a", "r2"),
            h.refused("a", "r3", "k1"),
            h.reserved("a", "r4", "k2", "ocr"),
            h.committed("a", "r4"),
            h.reserved("a", "r5", "k1"),
            h.reserved("a", "r6", "k1", "generate", "2026-12"),
            h.committed("a", "r6", "2026-12"),
            h.reserved("b", "r7", "k9"),
          ]);
          const { value } = yield* usage.activityOf("a", { period: "2026-11", recent: 4 });
          expect(value.daily).toEqual([
            { day: "2026-11-14", operation: "generate", committed: 1 },
            { day: "2026-11-14", operation: "ocr", committed: 1 },
          ]);
          expect(value.recent.map(({ requestId, outcome, operation, keyId }) => [requestId, outcome, operation, keyId])).toEqual([
            ["r6", "succeeded", "generate", "k1"],
            ["r5", "pending", "generate", "k1"],
            ["r4", "succeeded", "ocr", "k2"],
            ["r3", "refused", "generate", "k1"],
          ]);
          expect([...value.lastUsed].sort((x, y) => x.keyId.localeCompare(y.keyId))).toEqual([
            { keyId: "k1", at: "2026-11-14T10:00:00.000Z" },
            { keyId: "k2", at: "2026-11-14T10:00:00.000Z" },
          ]);
          // Only the newest RECENT_REQUESTS_KEPT requests of an account are kept.
          yield* usage.apply(Array.from({ length: RECENT_REQUESTS_KEPT }, (_, i) => h.reserved("a", `bulk-${i}`, "k1")));
          const after = (yield* usage.activityOf("a", { period: "2026-11", recent: 1000 })).value.recent;
          expect(after).toHaveLength(RECENT_REQUESTS_KEPT);
          expect(after[0]!.requestId).toBe(`bulk-${RECENT_REQUESTS_KEPT - 1}`);
          expect((yield* usage.activityOf("b", { period: "2026-11", recent: 10 })).value.recent.map((r) => r.requestId)).toEqual(["r7"]);
        }),
      ));

    it("finds accounts by email without regard to case", () =>
      withProjection(({ keys }) =>
        Effect.gen(function* () {
          const h = history();
          yield* keys.apply([h.opened("a"), h.opened("b")]);
          expect((yield* keys.accountsWithEmail("A@Example.com")).map((account) => account.accountId)).toEqual(["a"]);
          expect(yield* keys.accountsWithEmail("nobody@example.com")).toEqual([]);
        }),
      ));

    it("keeps the key directory: active keys with their account, revoked keys refused but remembered", () =>
      withProjection(({ keys }) =>
        Effect.gen(function* () {
          const h = history();
          yield* keys.apply([
            h.opened("a"),
            h.issued("a", "k1", "first"),
            h.issued("a", "k2", "second"),
            h.planChanged("a", "free", "pro"),
            h.revoked("a", "k1"),
            h.other("quota-a-2026-11"),
          ]);
          expect(yield* keys.findActiveKey("k1")).toEqual(Option.none());
          const found = yield* keys.findActiveKey("k2");
          expect(Option.getOrThrow(found)).toEqual({
            key: {
              keyId: "k2",
              accountId: "a",
              name: "second",
              prefix: "its_k2",
              secretHash: "hash-k2",
              createdAt: "2026-11-14T10:00:00.000Z",
              revokedAt: null,
              // Issued before restrictions existed: unrestricted.
              restrictions: { scopes: null, expiresAt: null, allowedIps: null, monthlyLimit: null },
              lastUsedAt: null,
            },
            account: { accountId: "a", email: "a@example.com", name: "N", plan: "pro", openedAt: "2026-11-14T10:00:00.000Z" },
          });
          const snapshot = yield* keys.keysOf("a");
          expect(snapshot.position).toBe(6);
          expect(snapshot.value.keys.map((k) => [k.keyId, k.revokedAt])).toEqual([
            ["k1", "2026-11-15T00:00:00.000Z"],
            ["k2", null],
          ]);
          expect(Option.getOrThrow(snapshot.value.account).plan).toBe("pro");
          expect((yield* keys.keysOf("nobody")).value).toEqual({ account: Option.none(), keys: [] });
          expect(yield* keys.findActiveKey("unknown")).toEqual(Option.none());
        }),
      ));

    it("keeps keys' restrictions and rolls, and notes when a key was last used apart from the events", () =>
      withProjection(({ keys }) =>
        Effect.gen(function* () {
          const h = history();
          const restrictions = { scopes: ["ocr"], expiresAt: null, allowedIps: ["203.0.113.0/24"], monthlyLimit: 2 };
          yield* keys.apply([
            h.opened("a"),
            h.issued("a", "k0"),
            h.restricted("a", "k1", restrictions),
            h.rolled("a", "k1", "k2", restrictions, "2026-11-14T10:00:04.000Z"),
          ]);
          yield* keys.apply([h.rolled("a", "k0", "k3", { scopes: null, expiresAt: null, allowedIps: null, monthlyLimit: null }, "2026-11-15T10:00:00.000Z")]);
          yield* keys.noteKeyUsed("k2", "2026-11-14T10:01:00.000Z");
          // An earlier note (another instance's, late) never moves it back.
          yield* keys.noteKeyUsed("k2", "2026-11-14T10:00:30.000Z");
          const listed = (yield* keys.keysOf("a")).value.keys;
          expect(listed.map((key) => [key.keyId, key.restrictions, key.lastUsedAt])).toEqual([
            ["k0", { scopes: null, expiresAt: "2026-11-15T10:00:00.000Z", allowedIps: null, monthlyLimit: null }, null],
            ["k1", { ...restrictions, expiresAt: "2026-11-14T10:00:04.000Z" }, null],
            ["k2", restrictions, "2026-11-14T10:01:00.000Z"],
            ["k3", { scopes: null, expiresAt: null, allowedIps: null, monthlyLimit: null }, null],
          ]);
          expect(Option.getOrThrow(yield* keys.findActiveKey("k2")).key.secretHash).toBe("hash-k2");
        }),
      ));

    it("keeps one checkpoint per projection", () =>
      withProjection(({ usage, keys }) =>
        Effect.gen(function* () {
          const h = history();
          const events = [h.opened("a"), h.reserved("a", "r1", "k1")];
          yield* usage.apply(events);
          expect(yield* usage.position).toBe(2);
          expect(yield* keys.position).toBe(0);
          expect(yield* keys.findActiveKey("k1")).toEqual(Option.none());
          yield* keys.apply(events);
          expect(Option.isSome((yield* keys.keysOf("a")).value.account)).toBe(true);
        }),
      ));

    it("is shared by instances on the same storage", () =>
      withProjections(2, ([one, two]) =>
        Effect.gen(function* () {
          expect(one!.usage.storageId).toBe(two!.usage.storageId);
          expect(one!.keys.storageId).toBe(one!.usage.storageId);
          const h = history();
          yield* one!.keys.apply([h.opened("a"), h.issued("a", "k1")]);
          yield* two!.keys.apply([h.revoked("a", "k1")]);
          expect(yield* one!.keys.findActiveKey("k1")).toEqual(Option.none());
          expect(yield* one!.keys.position).toBe(3);
        }),
      ));

    it("rebuilds from scratch to the same rows, showing the old rows until the rebuild commits", () =>
      withProjections(2, ([live, reader]) =>
        Effect.gen(function* () {
          const h = history();
          const events = [
            h.opened("a"),
            h.issued("a", "k1"),
            h.reserved("a", "r1", "k1"),
            h.committed("a", "r1"),
            h.refused("a", "r2", "k1"),
            h.revoked("a", "k1"),
          ];
          yield* live!.usage.apply(events);
          const before = yield* usageOf(live!.usage, "a");
          const halfway = yield* Deferred.make<void>();
          const proceed = yield* Deferred.make<void>();
          const paused = Stream.fromIterable(events.slice(0, 3)).pipe(
            Stream.concat(Stream.fromEffect(Deferred.succeed(halfway, undefined).pipe(Effect.andThen(Deferred.await(proceed)))).pipe(Stream.drain)),
            Stream.concat(Stream.fromIterable(events.slice(3))),
          );
          const rebuilding = yield* live!.usage.rebuild(paused).pipe(Effect.forkChild);
          yield* Deferred.await(halfway);
          expect(yield* usageOf(reader!.usage, "a")).toEqual(before);
          yield* Deferred.succeed(proceed, undefined);
          expect(yield* Fiber.join(rebuilding)).toBe(events.at(-1)!.globalPosition);
          expect(yield* usageOf(reader!.usage, "a")).toEqual(before);
          expect(yield* live!.usage.position).toBe(events.at(-1)!.globalPosition);

          // The key projection was never fed: a rebuild fills it.
          expect(yield* live!.keys.rebuild(Stream.fromIterable(events))).toBe(events.at(-1)!.globalPosition);
          expect((yield* reader!.keys.keysOf("a")).value.keys.map((k) => k.revokedAt)).toEqual(["2026-11-15T00:00:00.000Z"]);
        }),
      ));

    it("belongs to one store: bound to another, rows and position built from the first are emptied", () =>
      withProjections(2, ([one, two]) =>
        Effect.gen(function* () {
          const h = history();
          expect(yield* one!.keys.bindToStore("store-a@1")).toEqual({ _tag: "Bound" });
          yield* one!.keys.apply([h.opened("a"), h.issued("a", "k1")]);
          // Usage was filled before any store was recorded (by an earlier version).
          yield* one!.usage.apply([h.reserved("a", "r1", "k1")]);
          expect(yield* two!.keys.bindToStore("store-a@1")).toEqual({ _tag: "Bound" });
          expect(Option.isSome(yield* two!.keys.findActiveKey("k1"))).toBe(true);

          expect(yield* two!.keys.bindToStore("store-b@1")).toEqual({ _tag: "Reset", previous: "store-a@1" });
          expect(yield* one!.keys.findActiveKey("k1")).toEqual(Option.none());
          expect(yield* one!.keys.keysOf("a")).toEqual({ position: 0, value: { account: Option.none(), keys: [] } });
          expect(yield* one!.usage.bindToStore("store-b@1")).toEqual({ _tag: "Reset", previous: null });
          expect(yield* usageOf(one!.usage, "a")).toEqual([]);
          expect(yield* one!.usage.position).toBe(0);

          // Filled again from the new store, and kept on the next start.
          const fresh = history();
          yield* one!.keys.apply([fresh.opened("b"), fresh.issued("b", "k2")]);
          expect(yield* one!.keys.bindToStore("store-b@1")).toEqual({ _tag: "Bound" });
          expect(Option.isSome(yield* one!.keys.findActiveKey("k2"))).toBe(true);
          expect(yield* one!.keys.position).toBe(2);
        }),
      ));

    it("keeps an account's jobs newest first, page by page, and the jobs a runner may claim oldest first", () =>
      withProjection(({ jobs }) =>
        Effect.gen(function* () {
          const h = history();
          const minute = (m: number) => `2026-11-14T10:0${m}:00.000Z`;
          const events = [
            h.jobAccepted("a", "j1", minute(1), 3),
            h.jobAccepted("a", "j2", minute(2)),
            h.jobAccepted("a", "j3", minute(3)),
            h.jobAccepted("a", "j4", minute(4)),
            h.jobAccepted("b", "j5", minute(5)),
            h.jobStarted("a", "j1", "2026-11-14T10:10:00.000Z"),
            h.jobProgressed("a", "j1", 1, 3, "2026-11-14T10:20:00.000Z"),
            h.jobStarted("a", "j2", "2026-11-14T10:05:00.000Z"),
            h.jobStarted("a", "j3", "2026-11-14T10:05:00.000Z"),
            h.jobSucceeded("a", "j3"),
            h.jobFailed("a", "j4", "INPUT_GONE"),
            h.other("transformation-x"),
          ];
          yield* jobs.apply(events);
          expect(yield* jobs.position).toBe(events.at(-1)!.globalPosition);

          const first = yield* jobs.jobsOf("a", { limit: 2 });
          expect(first.position).toBe(events.at(-1)!.globalPosition);
          expect(first.value.jobs.map((job) => [job.jobId, job.status])).toEqual([
            ["j4", "failed"],
            ["j3", "succeeded"],
          ]);
          expect(first.value.jobs[0]).toMatchObject({ accountId: "a", operation: "generate", errorCode: "INPUT_GONE", startedAt: null, leaseUntil: null });
          expect(first.value.jobs[1]).toMatchObject({ progress: { done: 1, total: 1 }, finishedAt: "2026-11-14T10:03:00.000Z", errorCode: null });
          const second = yield* jobs.jobsOf("a", { limit: 2, before: first.value.next });
          expect(second.value.jobs.map((job) => job.jobId)).toEqual(["j2", "j1"]);
          expect(second.value.next).toBeUndefined();
          expect(second.value.jobs[1]).toEqual({
            jobId: "j1",
            accountId: "a",
            operation: "generate",
            status: "running",
            createdAt: minute(1),
            startedAt: "2026-11-14T10:01:00.000Z",
            finishedAt: null,
            attempt: 1,
            progress: { done: 1, total: 3 },
            leaseUntil: "2026-11-14T10:20:00.000Z",
            errorCode: null,
          });
          expect((yield* jobs.jobsOf("nobody", { limit: 10 })).value).toEqual({ jobs: [], next: undefined });
          const malformed = yield* Effect.flip(jobs.jobsOf("a", { limit: 2, before: "not a cursor" }));
          expect(malformed).toBeInstanceOf(InvalidJobCursor);

          // j1's lease (extended by its progress) holds until 10:20, j2's passed at 10:05; j3 and j4 are done.
          expect(yield* jobs.runnable(new Date("2026-11-14T10:06:00.000Z"), 10)).toEqual([
            { jobId: "j2", accountId: "a" },
            { jobId: "j5", accountId: "b" },
          ]);
          expect(yield* jobs.runnable(new Date("2026-11-14T10:20:00.000Z"), 10)).toEqual([
            { jobId: "j1", accountId: "a" },
            { jobId: "j2", accountId: "a" },
            { jobId: "j5", accountId: "b" },
          ]);
          expect(yield* jobs.runnable(new Date("2026-11-14T10:20:00.000Z"), 1)).toEqual([{ jobId: "j1", accountId: "a" }]);
          expect(yield* jobs.queuedCount("a")).toBe(2);
          expect(yield* jobs.queuedCount("b")).toBe(1);
          expect(yield* jobs.queuedCount("nobody")).toBe(0);
        }),
      ));

    it("rebuilds and binds the jobs like the others, other categories only moving its position", () =>
      withProjections(2, ([one, two]) =>
        Effect.gen(function* () {
          const h = history();
          const events = [h.opened("a"), h.jobAccepted("a", "j1", "2026-11-14T10:01:00.000Z"), h.reserved("a", "r1", "k1"), h.jobSucceeded("a", "j1")];
          yield* one!.jobs.apply(events);
          yield* one!.jobs.apply(events);
          expect(one!.jobs.storageId).toBe(one!.usage.storageId);
          expect(yield* two!.jobs.position).toBe(4);
          expect(yield* one!.keys.position).toBe(0);
          const listed = (yield* two!.jobs.jobsOf("a", { limit: 10 })).value.jobs;
          expect(listed.map((job) => [job.jobId, job.status])).toEqual([["j1", "succeeded"]]);
          expect(yield* two!.jobs.rebuild(Stream.fromIterable(events))).toBe(4);
          expect((yield* one!.jobs.jobsOf("a", { limit: 10 })).value.jobs).toEqual(listed);

          expect(yield* one!.jobs.bindToStore("store-a@1")).toEqual({ _tag: "Reset", previous: null });
          expect((yield* two!.jobs.jobsOf("a", { limit: 10 })).value).toEqual({ jobs: [], next: undefined });
          expect(yield* two!.jobs.position).toBe(0);
        }),
      ));

    it("leaves the old rows in place when a rebuild fails", () =>
      withProjection(({ usage }) =>
        Effect.gen(function* () {
          const h = history();
          const events = [h.reserved("a", "r1", "k1"), h.committed("a", "r1")];
          yield* usage.apply(events);
          const failing = Stream.fromIterable(events.slice(0, 1)).pipe(Stream.concat(Stream.fail(new DependencyUnavailable({ dependency: "store" }))));
          const failure = yield* Effect.flip(usage.rebuild(failing));
          expect(failure._tag).toBe("DependencyUnavailable");
          expect(yield* usageOf(usage, "a")).toEqual([
            { period: "2026-11", operation: "generate", keyId: "k1", reserved: 1, committed: 1, released: 0, refused: 0 },
          ]);
          expect(yield* usage.position).toBe(2);
          // And the storage is usable afterwards.
          yield* usage.apply([h.reserved("a", "r2", "k1")]);
          expect(yield* usage.position).toBe(3);
        }),
      ));
  });

/** An adapter instance from its layer, alive until the enclosing scope closes. */
export const instanceOf = <E>(layer: Layer.Layer<UsageProjection | KeyProjection | JobProjection, E>): Effect.Effect<Projections, E, Scope.Scope> =>
  Layer.build(layer).pipe(
    Effect.map((context) => ({
      usage: Context.get(context, UsageProjection),
      keys: Context.get(context, KeyProjection),
      jobs: Context.get(context, JobProjection),
    })),
  );
