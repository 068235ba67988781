import { accept, type Decider, type Decision, reject } from "./decider.ts";
import type { Feature } from "./plan.ts";

/**
 * An asynchronous request (`Prefer: respond-async`): accepted with its quota already reserved,
 * then run by whichever instance claims it. A claim is a lease: an instance that dies holding one
 * loses it when the lease passes, and another claims the job again (a new attempt); only the
 * holder of the current lease may record progress or the outcome. Stream: `job-<jobId>`.
 */
export const jobStream = (jobId: string): string => `job-${jobId}`;

export type JobStatus = "queued" | "running" | "succeeded" | "failed";

/** What the job was asked to do, as accepted: the request body waits in the result store (`inputRef`), checked by its digest. */
export interface JobAcceptedData {
  readonly jobId: string;
  readonly accountId: string;
  readonly keyId: string;
  readonly operation: Feature;
  /** The quota reservation's request id: the receipts and the audit know the job's work by it. */
  readonly requestId: string;
  readonly units: number;
  readonly inputRef: string;
  readonly inputSha256: string;
  /** When the job, its input and its result are no longer kept. */
  readonly expiresAt: string;
  readonly at: string;
}

export type JobEvent =
  | { readonly type: "JobAccepted"; readonly data: JobAcceptedData }
  | {
      readonly type: "JobStarted";
      readonly data: { jobId: string; accountId: string; attempt: number; worker: string; leaseUntil: string; at: string };
    }
  | {
      readonly type: "JobProgressed";
      readonly data: { jobId: string; accountId: string; done: number; total: number; leaseUntil: string; at: string };
    }
  | {
      readonly type: "JobSucceeded";
      readonly data: { jobId: string; accountId: string; operation: Feature; resultRef: string; resultSha256: string; at: string };
    }
  | {
      readonly type: "JobFailed";
      readonly data: { jobId: string; accountId: string; operation: Feature; code: string; message: string; at: string };
    };

export type JobCommand =
  | ({ readonly type: "AcceptJob"; readonly now: Date } & Omit<JobAcceptedData, "at">)
  | { readonly type: "StartJob"; readonly worker: string; readonly leaseUntil: Date; readonly now: Date }
  | {
      readonly type: "RecordJobProgress";
      readonly worker: string;
      readonly done: number;
      readonly total: number;
      readonly leaseUntil: Date;
      readonly now: Date;
    }
  | { readonly type: "SucceedJob"; readonly worker: string; readonly resultRef: string; readonly resultSha256: string; readonly now: Date }
  | { readonly type: "FailJob"; readonly worker: string; readonly code: string; readonly message: string; readonly now: Date };

export type JobState =
  | { readonly status: "none" }
  | {
      readonly status: JobStatus;
      readonly accepted: JobAcceptedData;
      readonly attempt: number;
      readonly worker: string | undefined;
      readonly leaseUntil: string | undefined;
      readonly progress: { readonly done: number; readonly total: number };
      readonly startedAt: string | undefined;
      readonly finishedAt: string | undefined;
      readonly result: { readonly resultRef: string; readonly resultSha256: string } | undefined;
      readonly error: { readonly code: string; readonly message: string } | undefined;
    };

type Known = Exclude<JobState, { readonly status: "none" }>;

/** A running job's lease has passed: its holder is taken to be gone. */
export const leaseExpired = (state: Known, now: Date): boolean => state.leaseUntil === undefined || Date.parse(state.leaseUntil) <= now.getTime();

const holds = (state: Known, worker: string, now: Date) => state.status === "running" && state.worker === worker && !leaseExpired(state, now);

const decide = (command: JobCommand, state: JobState): Decision<JobEvent> => {
  const at = command.now.toISOString();
  if (command.type === "AcceptJob") {
    if (state.status !== "none") return reject("JOB_EXISTS", `job ${command.jobId} already exists`);
    const { type: _, now: __, ...data } = command;
    return accept({ type: "JobAccepted", data: { ...data, at } });
  }
  if (state.status === "none") return reject("JOB_NOT_FOUND", "no such job");
  const { jobId, accountId, operation } = state.accepted;
  if (state.status === "succeeded" || state.status === "failed") return reject("JOB_FINISHED", `job ${jobId} already ${state.status}`);
  switch (command.type) {
    case "StartJob":
      if (state.status === "running" && !leaseExpired(state, command.now)) return reject("JOB_CLAIMED", `job ${jobId} is running elsewhere`);
      return accept({
        type: "JobStarted",
        data: { jobId, accountId, attempt: state.attempt + 1, worker: command.worker, leaseUntil: command.leaseUntil.toISOString(), at },
      });
    case "RecordJobProgress":
      if (!holds(state, command.worker, command.now)) return reject("JOB_LEASE_LOST", `job ${jobId} is not held by ${command.worker}`);
      return accept({
        type: "JobProgressed",
        data: { jobId, accountId, done: command.done, total: command.total, leaseUntil: command.leaseUntil.toISOString(), at },
      });
    case "SucceedJob":
      if (!holds(state, command.worker, command.now)) return reject("JOB_LEASE_LOST", `job ${jobId} is not held by ${command.worker}`);
      return accept({ type: "JobSucceeded", data: { jobId, accountId, operation, resultRef: command.resultRef, resultSha256: command.resultSha256, at } });
    case "FailJob":
      // A queued job may fail too: its input is gone, or it outlived its retention before any instance ran it.
      if (state.status === "running" && !holds(state, command.worker, command.now)) {
        return reject("JOB_LEASE_LOST", `job ${jobId} is not held by ${command.worker}`);
      }
      return accept({ type: "JobFailed", data: { jobId, accountId, operation, code: command.code, message: command.message, at } });
  }
};

const evolve = (state: JobState, event: JobEvent): JobState => {
  if (event.type === "JobAccepted") {
    return {
      status: "queued",
      accepted: event.data,
      attempt: 0,
      worker: undefined,
      leaseUntil: undefined,
      progress: { done: 0, total: event.data.units },
      startedAt: undefined,
      finishedAt: undefined,
      result: undefined,
      error: undefined,
    };
  }
  if (state.status === "none") return state;
  switch (event.type) {
    case "JobStarted":
      return {
        ...state,
        status: "running",
        attempt: event.data.attempt,
        worker: event.data.worker,
        leaseUntil: event.data.leaseUntil,
        startedAt: event.data.at,
      };
    case "JobProgressed":
      return { ...state, progress: { done: event.data.done, total: event.data.total }, leaseUntil: event.data.leaseUntil };
    case "JobSucceeded":
      return {
        ...state,
        status: "succeeded",
        finishedAt: event.data.at,
        result: { resultRef: event.data.resultRef, resultSha256: event.data.resultSha256 },
        progress: { done: state.progress.total, total: state.progress.total },
      };
    case "JobFailed":
      return { ...state, status: "failed", finishedAt: event.data.at, error: { code: event.data.code, message: event.data.message } };
  }
};

export const jobDecider: Decider<JobCommand, JobEvent, JobState> = { decide, evolve, initialState: () => ({ status: "none" }) };
