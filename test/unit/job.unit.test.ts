import { describe, expect, it } from "vitest";
import { jobDecider, type JobEvent } from "../../src/domain/job.ts";
import { deciderSpec } from "../support/decider-spec.ts";

const spec = deciderSpec(jobDecider);
const now = new Date("2026-11-28T10:00:00.000Z");
const at = (seconds: number) => new Date(now.getTime() + seconds * 1000);
const accepted: JobEvent = {
  type: "JobAccepted",
  data: {
    jobId: "j1",
    accountId: "a1",
    keyId: "k1",
    operation: "ocr",
    requestId: "r1",
    units: 3,
    inputRef: "in1",
    inputSha256: "0".repeat(64),
    expiresAt: at(3600).toISOString(),
    at: now.toISOString(),
  },
};
const started = (worker: string, attempt: number, when = 0, lease = 30): JobEvent => ({
  type: "JobStarted",
  data: { jobId: "j1", accountId: "a1", attempt, worker, leaseUntil: at(when + lease).toISOString(), at: at(when).toISOString() },
});
const start = (worker: string, when = 0, lease = 30) => ({ type: "StartJob" as const, worker, leaseUntil: at(when + lease), now: at(when) });
const succeed = (worker: string, when = 5) => ({ type: "SucceedJob" as const, worker, resultRef: "res1", resultSha256: "1".repeat(64), now: at(when) });

describe("job", () => {
  it("is accepted once", () => {
    const { at: _, ...fields } = accepted.data;
    spec
      .given([])
      .when({ type: "AcceptJob", ...fields, now })
      .then([accepted]);
    spec
      .given([accepted])
      .when({ type: "AcceptJob", ...fields, now })
      .thenRejects("JOB_EXISTS");
  });

  it("is claimed by one worker while its lease runs, and by another once it has passed", () => {
    spec
      .given([accepted])
      .when(start("w1"))
      .then([started("w1", 1)]);
    spec
      .given([accepted, started("w1", 1)])
      .when(start("w2", 10))
      .thenRejects("JOB_CLAIMED");
    spec
      .given([accepted, started("w1", 1)])
      .when(start("w2", 31))
      .then([started("w2", 2, 31)]);
  });

  it("takes progress and the outcome only from the lease's holder", () => {
    spec
      .given([accepted, started("w1", 1)])
      .when({ type: "RecordJobProgress", worker: "w1", done: 1, total: 3, leaseUntil: at(40), now: at(10) })
      .then([{ type: "JobProgressed", data: { jobId: "j1", accountId: "a1", done: 1, total: 3, leaseUntil: at(40).toISOString(), at: at(10).toISOString() } }]);
    spec
      .given([accepted, started("w1", 1), started("w2", 2, 31)])
      .when(succeed("w1", 35))
      .thenRejects("JOB_LEASE_LOST");
    spec
      .given([accepted, started("w1", 1)])
      .when(succeed("w1", 31))
      .thenRejects("JOB_LEASE_LOST");
  });

  it("ends once: succeeded or failed, with its result or error in the state", () => {
    const succeeded: JobEvent = {
      type: "JobSucceeded",
      data: { jobId: "j1", accountId: "a1", operation: "ocr", resultRef: "res1", resultSha256: "1".repeat(64), at: at(5).toISOString() },
    };
    spec
      .given([accepted, started("w1", 1)])
      .when(succeed("w1"))
      .then([succeeded]);
    spec
      .given([accepted, started("w1", 1), succeeded])
      .when(start("w2", 100))
      .thenRejects("JOB_FINISHED");
    expect(spec.given([accepted, started("w1", 1), succeeded]).state()).toMatchObject({
      status: "succeeded",
      result: { resultRef: "res1" },
      progress: { done: 3, total: 3 },
    });
  });

  it("fails a queued job that no instance could run, with its reason", () => {
    spec
      .given([accepted])
      .when({ type: "FailJob", worker: "w9", code: "JOB_INPUT_GONE", message: "gone", now: at(1) })
      .then([
        { type: "JobFailed", data: { jobId: "j1", accountId: "a1", operation: "ocr", code: "JOB_INPUT_GONE", message: "gone", at: at(1).toISOString() } },
      ]);
  });
});
