import { Worker } from "node:worker_threads";
import type { TryOnSettings } from "../../domain/tryon-settings.ts";
import type { TryOnOutcome } from "./tryon-pipeline.ts";
import type { TryOnJob, TryOnThreadMessage, TryOnThreadSetup } from "./tryon-thread.ts";

/**
 * The event loop's side of the try-on thread: posts a job, awaits its outcome. A thread that
 * dies (an out-of-memory abort, a native fault, a kill) fails the jobs it held and is started
 * again on the next job, with its models loaded afresh. So is one whose job failed unexpectedly
 * (an outcome the pipeline did not foresee, as an onnxruntime error): a thread in an unknown
 * state never answers again. It is terminated only once its job has ended, when no inference
 * is in flight: terminating the thread while onnxruntime runs aborts the whole process (its
 * addon throws during teardown), so a running job is never cut short, not even at its deadline.
 */
const threadUrl = new URL("./tryon-thread.ts", import.meta.url);

interface Pending {
  readonly resolve: (outcome: TryOnOutcome) => void;
  readonly reject: (error: Error) => void;
}

export interface TryOnThread {
  readonly run: (person: Uint8Array, clothing: Uint8Array, settings: TryOnSettings) => Promise<TryOnOutcome>;
  readonly terminate: () => Promise<void>;
}

/** A started thread; `onEnd` runs once when it exits or is discarded, after its jobs have failed. */
const spawn = (setup: TryOnThreadSetup, pending: Map<number, Pending>, onEnd: () => void): Promise<Worker> =>
  new Promise((resolve, reject) => {
    const worker = new Worker(threadUrl, { workerData: setup });
    let ready = false;
    let ended = false;
    const end = (error: Error) => {
      if (ended) return;
      ended = true;
      for (const job of pending.values()) job.reject(error);
      pending.clear();
      onEnd();
      if (!ready) reject(error);
    };
    worker.on("error", end);
    worker.on("exit", (code) => end(new Error(`the try-on thread exited with code ${code}`)));
    worker.on("message", (message: TryOnThreadMessage) => {
      if (message.kind === "ready") {
        ready = true;
        return resolve(worker);
      }
      const job = pending.get(message.id);
      pending.delete(message.id);
      if (message.kind === "done") return job?.resolve(message.outcome);
      job?.reject(new Error(message.message));
      end(new Error(`the try-on thread was discarded after a failed job: ${message.message}`));
      void worker.terminate();
    });
  });

export const startTryOnThread = async (setup: TryOnThreadSetup): Promise<TryOnThread> => {
  const pending = new Map<number, Pending>();
  let nextId = 0;
  let closed = false;
  let worker: Promise<Worker> | undefined;
  const current = () => {
    if (worker) return worker;
    const started = spawn(setup, pending, () => {
      // Only this thread's end clears it: a later one may already have taken its place.
      if (worker === started) worker = undefined;
    });
    worker = started;
    return started;
  };
  await current();
  return {
    run: async (person, clothing, settings) => {
      if (closed) throw new Error("the try-on thread is closed");
      const thread = await current();
      const id = nextId++;
      return new Promise<TryOnOutcome>((resolve, reject) => {
        pending.set(id, { resolve, reject });
        thread.postMessage({ id, person, clothing, settings } satisfies TryOnJob);
      });
    },
    terminate: async () => {
      closed = true;
      const running = worker;
      worker = undefined;
      if (running) await (await running).terminate();
    },
  };
};
