import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Context, Effect, Layer, type Scope, Stream } from "effect";
import { afterEach, describe, expect, it } from "vitest";
import { sqliteEventStoreLayer } from "../../src/adapters/event-store/sqlite-event-store.ts";
import { sqliteProjectionsLayer } from "../../src/adapters/projections/sqlite-projections.ts";
import { jobEventCodec } from "../../src/application/event-sourcing/events/job-events.ts";
import { catchUpFromStore } from "../../src/application/event-sourcing/projection-runner.ts";
import { type JobEvent, jobStream } from "../../src/domain/job.ts";
import { EventStore, type RecordedEvent } from "../../src/ports/event-store.ts";
import { InvalidJobCursor, JobProjection, type JobProjectionShape, type ProjectedJob } from "../../src/ports/projections.ts";

/**
 * The jobs projection over the real SQLite event store: job events encoded by their codec and
 * appended as the use cases append them, the projection caught up from the store as the server
 * catches it up, and a second projection instance opened on the same file as a restart opens it.
 */
const directories: Array<string> = [];
afterEach(() => directories.splice(0).forEach((directory) => rmSync(directory, { recursive: true, force: true })));

const freshDirectory = () => {
  const directory = mkdtempSync(join(tmpdir(), "its-jobs-"));
  directories.push(directory);
  return directory;
};

const storeLayer = (directory: string) => sqliteEventStoreLayer({ path: join(directory, "events.sqlite") });
const projectionsOn = (directory: string) => sqliteProjectionsLayer({ path: join(directory, "projections.sqlite") });

/** A projection instance on the directory's projections file, open for as long as the scope. */
const openJobs = (directory: string) => Layer.build(projectionsOn(directory)).pipe(Effect.map((context) => Context.get(context, JobProjection)));

const run = <A>(directory: string, body: Effect.Effect<A, unknown, EventStore | Scope.Scope>) =>
  Effect.runPromise(Effect.scoped(body).pipe(Effect.provide(storeLayer(directory))));

/** Appends job events in order, each to its stream at the revision it has reached. */
const record = (...events: ReadonlyArray<JobEvent>) =>
  Effect.gen(function* () {
    const store = yield* EventStore;
    for (const event of events) {
      const stream = jobStream(event.data.jobId);
      const existing = yield* store.readStream(stream);
      yield* store.appendToStream(stream, [jobEventCodec.encode(event, {})], { expectedRevision: existing.length - 1 });
    }
  });

const accepted = (accountId: string, jobId: string, at: string, units = 1): JobEvent => ({
  type: "JobAccepted",
  data: {
    jobId,
    accountId,
    keyId: "k1",
    operation: "ocr",
    requestId: `req-${jobId}`,
    units,
    inputRef: `input-${jobId}`,
    inputSha256: "0".repeat(64),
    expiresAt: "2026-12-14T00:00:00.000Z",
    at,
  },
});
const started = (accountId: string, jobId: string, leaseUntil: string, attempt = 1): JobEvent => ({
  type: "JobStarted",
  data: { jobId, accountId, attempt, worker: `w${attempt}`, leaseUntil, at: "2026-11-14T11:00:00.000Z" },
});
const progressed = (accountId: string, jobId: string, done: number, total: number, leaseUntil: string): JobEvent => ({
  type: "JobProgressed",
  data: { jobId, accountId, done, total, leaseUntil, at: "2026-11-14T11:01:00.000Z" },
});
const succeeded = (accountId: string, jobId: string): JobEvent => ({
  type: "JobSucceeded",
  data: { jobId, accountId, operation: "ocr", resultRef: `result-${jobId}`, resultSha256: "1".repeat(64), at: "2026-11-14T11:02:00.000Z" },
});
const failed = (accountId: string, jobId: string, code: string): JobEvent => ({
  type: "JobFailed",
  data: { jobId, accountId, operation: "ocr", code, message: "it failed", at: "2026-11-14T11:03:00.000Z" },
});

/** Every page of an account's jobs, following `next` to the end. */
const allPages = (jobs: JobProjectionShape, accountId: string, limit: number) =>
  Effect.gen(function* () {
    const pages: Array<ReadonlyArray<ProjectedJob>> = [];
    let before: string | undefined;
    for (;;) {
      const { value } = yield* jobs.jobsOf(accountId, { limit, before });
      pages.push(value.jobs);
      if (value.next === undefined) return pages;
      before = value.next;
    }
  });

const storeEvents = Effect.flatMap(EventStore, (store) => store.readAll({ after: 0, limit: 10_000 }));

describe("the jobs projection", () => {
  it("lists an account's jobs newest first, each exactly once across pages, also among jobs accepted at the same time", async () => {
    const directory = freshDirectory();
    // Five jobs at each of five instants (two of them the same), accepted in an order that is not the job ids' order; another account's between them.
    const instants = ["10:00", "10:05", "10:05", "10:10", "10:15"].map((time) => `2026-11-14T${time}:00.000Z`);
    const expected: Array<{ jobId: string; createdAt: string }> = [];
    const events: Array<JobEvent> = [];
    instants.forEach((at, i) => {
      for (const letter of ["d", "a", "e", "c", "b"]) {
        const jobId = `job-${i}-${letter}`;
        events.push(accepted("a", jobId, at), accepted("b", `other-${i}-${letter}`, at));
        expected.push({ jobId, createdAt: at });
      }
    });
    expected.sort((x, y) => (x.createdAt === y.createdAt ? y.jobId.localeCompare(x.jobId) : y.createdAt.localeCompare(x.createdAt)));

    await run(
      directory,
      Effect.gen(function* () {
        yield* record(...events);
        const jobs = yield* openJobs(directory);
        yield* catchUpFromStore(jobs);
        for (const limit of [1, 3, 4, 7, 25, 100]) {
          const pages = yield* allPages(jobs, "a", limit);
          expect(pages.flat().map(({ jobId, createdAt }) => ({ jobId, createdAt }))).toEqual(expected);
          expect(pages.every((page) => page.length <= limit)).toBe(true);
          expect(pages).toHaveLength(Math.max(1, Math.ceil(expected.length / limit)));
        }

        // A job accepted while a client pages is on a fresh first page, not among the pages after a cursor.
        const first = yield* jobs.jobsOf("a", { limit: 10 });
        yield* record(accepted("a", "job-late", "2026-11-14T12:00:00.000Z"));
        yield* catchUpFromStore(jobs);
        const rest = yield* allPages(jobs, "a", 10).pipe(Effect.map((pages) => pages.flat().map((job) => job.jobId)));
        expect(rest[0]).toBe("job-late");
        const second = yield* jobs.jobsOf("a", { limit: 10, before: first.value.next });
        expect(second.value.jobs.map((job) => job.jobId)).toEqual(expected.slice(10, 20).map((job) => job.jobId));
        expect(second.position).toBeGreaterThan(first.position);

        // A cursor is only ever one that `next` gave: anything else is refused, not read as a place.
        const cursor = first.value.next!;
        for (const bad of [
          "",
          "!!!",
          `${cursor}=`,
          `${cursor.slice(0, -2)}`,
          Buffer.from('["x"]').toString("base64url"),
          Buffer.from("{}").toString("base64url"),
        ]) {
          const refused = yield* Effect.flip(jobs.jobsOf("a", { limit: 10, before: bad }));
          expect(refused).toBeInstanceOf(InvalidJobCursor);
        }
      }),
    );
  });

  it("finds the jobs a runner may claim, oldest first: queued ones and running ones whose lease has passed", async () => {
    const directory = freshDirectory();
    await run(
      directory,
      Effect.gen(function* () {
        yield* record(
          accepted("a", "queued", "2026-11-14T10:04:00.000Z"),
          accepted("a", "expired", "2026-11-14T10:01:00.000Z"),
          accepted("b", "live", "2026-11-14T10:00:00.000Z", 4),
          accepted("a", "done", "2026-11-14T10:02:00.000Z"),
          accepted("b", "refused", "2026-11-14T10:03:00.000Z"),
          accepted("a", "again", "2026-11-14T10:05:00.000Z"),
          started("a", "expired", "2026-11-14T11:05:00.000Z"),
          started("b", "live", "2026-11-14T11:05:00.000Z"),
          progressed("b", "live", 2, 4, "2026-11-14T11:30:00.000Z"),
          started("a", "done", "2026-11-14T11:05:00.000Z"),
          succeeded("a", "done"),
          failed("b", "refused", "INPUT_GONE"),
          // Its first holder died; another instance claimed it again.
          started("a", "again", "2026-11-14T11:02:00.000Z"),
          started("a", "again", "2026-11-14T11:20:00.000Z", 2),
        );
        const jobs = yield* openJobs(directory);
        yield* catchUpFromStore(jobs);
        const at = (time: string) => new Date(`2026-11-14T${time}:00.000Z`);
        const ids = (found: ReadonlyArray<{ jobId: string }>) => found.map((job) => job.jobId);

        expect(ids(yield* jobs.runnable(at("11:00"), 10))).toEqual(["queued"]);
        // A lease that ends now has passed (as in the decider's leaseExpired).
        expect(yield* jobs.runnable(at("11:05"), 10)).toEqual([
          { jobId: "expired", accountId: "a" },
          { jobId: "queued", accountId: "a" },
        ]);
        // Progress extended the live job's lease to 11:30; the second attempt's lease runs to 11:20.
        expect(ids(yield* jobs.runnable(at("11:25"), 10))).toEqual(["expired", "queued", "again"]);
        expect(ids(yield* jobs.runnable(at("11:30"), 10))).toEqual(["live", "expired", "queued", "again"]);
        expect(ids(yield* jobs.runnable(at("11:30"), 2))).toEqual(["live", "expired"]);
        expect(yield* jobs.queuedCount("a")).toBe(3);
        expect(yield* jobs.queuedCount("b")).toBe(1);

        const listed = (yield* jobs.jobsOf("a", { limit: 10 })).value.jobs;
        expect(listed.find((job) => job.jobId === "again")).toMatchObject({ status: "running", attempt: 2, leaseUntil: "2026-11-14T11:20:00.000Z" });
        expect(listed.find((job) => job.jobId === "done")).toMatchObject({
          status: "succeeded",
          progress: { done: 1, total: 1 },
          finishedAt: "2026-11-14T11:02:00.000Z",
          leaseUntil: null,
        });
        const refused = (yield* jobs.jobsOf("b", { limit: 10 })).value.jobs.find((job) => job.jobId === "refused");
        expect(refused).toMatchObject({ status: "failed", errorCode: "INPUT_GONE", startedAt: null });

        // Finishing takes a job out of both the runner's list and the cap's count.
        yield* record(succeeded("a", "expired"), failed("a", "queued", "EXPIRED"));
        yield* catchUpFromStore(jobs);
        expect(ids(yield* jobs.runnable(at("11:30"), 10))).toEqual(["live", "again"]);
        expect(yield* jobs.queuedCount("a")).toBe(1);
      }),
    );
  });

  it("resumes at its position after a restart, and applying or rebuilding again changes nothing", async () => {
    const directory = freshDirectory();
    const snapshot = (jobs: JobProjectionShape) =>
      Effect.all({
        a: Effect.map(jobs.jobsOf("a", { limit: 100 }), ({ value }) => value.jobs),
        runnable: jobs.runnable(new Date("2026-11-14T11:10:00.000Z"), 100),
        open: jobs.queuedCount("a"),
        position: jobs.position,
      });
    await run(
      directory,
      Effect.gen(function* () {
        yield* record(accepted("a", "j1", "2026-11-14T10:00:00.000Z", 2), accepted("a", "j2", "2026-11-14T10:01:00.000Z"));
        const before = yield* Effect.scoped(
          Effect.gen(function* () {
            const jobs = yield* openJobs(directory);
            yield* catchUpFromStore(jobs);
            return yield* snapshot(jobs);
          }),
        );
        expect(before.position).toBe(2);
        expect(before.open).toBe(2);

        // Written while no instance ran; the restarted one reads from its position on.
        yield* record(started("a", "j1", "2026-11-14T11:05:00.000Z"), progressed("a", "j1", 1, 2, "2026-11-14T11:06:00.000Z"), succeeded("a", "j2"));
        const reads: Array<ReadonlyArray<RecordedEvent>> = [];
        const jobs = yield* openJobs(directory);
        expect(yield* jobs.position).toBe(2);
        yield* catchUpFromStore(jobs, (page) => reads.push(page));
        expect(reads.flat().map((event) => event.globalPosition)).toEqual([3, 4, 5]);
        const after = yield* snapshot(jobs);
        expect(after.position).toBe(5);
        expect(after.runnable).toEqual([{ jobId: "j1", accountId: "a" }]);
        expect(after.open).toBe(1);
        expect(after.a.map((job) => [job.jobId, job.status, job.progress.done, job.progress.total])).toEqual([
          ["j2", "succeeded", 1, 1],
          ["j1", "running", 1, 2],
        ]);

        // Every event again, all at once and one by one: the rows and the position stay.
        const history = yield* storeEvents;
        yield* jobs.apply(history);
        yield* Effect.forEach(history, (event) => jobs.apply([event]));
        expect(yield* snapshot(jobs)).toEqual(after);
        // And a rebuild from the store makes the same rows.
        expect(yield* jobs.rebuild(Stream.fromIterable(history))).toBe(5);
        expect(yield* snapshot(jobs)).toEqual(after);
      }),
    );
  });
});
