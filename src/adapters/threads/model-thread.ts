import { Worker } from "node:worker_threads";
import { closeThread } from "./close-thread.ts";
import type { ModelThreadMessage, ModelThreadRequest } from "./model-thread-server.ts";

/**
 * The event loop's side of a model thread (model-thread-server.ts): posts a job, awaits its
 * outcome. A thread that dies (an out-of-memory abort, a native fault, a kill) fails the jobs it
 * held and is started again on the next job, with its models loaded afresh. So is one whose job
 * failed unexpectedly (an outcome the model did not foresee, as an onnxruntime error): a thread
 * in an unknown state never answers again. A thread is closed, never terminated (close-thread.ts).
 */
interface Pending<Outcome> {
  readonly resolve: (outcome: Outcome) => void;
  readonly reject: (error: Error) => void;
}

export interface ModelThread<Job, Outcome> {
  readonly run: (job: Job) => Promise<Outcome>;
  readonly terminate: () => Promise<void>;
}

/** A started thread; `onEnd` runs once when it exits or is discarded, after its jobs have failed. */
const spawn = <Outcome>(url: URL, setup: unknown, what: string, pending: Map<number, Pending<Outcome>>, onEnd: () => void): Promise<Worker> =>
  new Promise((resolve, reject) => {
    const worker = new Worker(url, { workerData: setup });
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
    worker.on("exit", (code) => end(new Error(`the ${what} thread exited with code ${code}`)));
    worker.on("message", (message: ModelThreadMessage<Outcome>) => {
      if (message.kind === "ready") {
        ready = true;
        return resolve(worker);
      }
      const job = pending.get(message.id);
      pending.delete(message.id);
      if (message.kind === "done") return job?.resolve(message.outcome);
      job?.reject(new Error(message.message));
      end(new Error(`the ${what} thread was discarded after a failed job: ${message.message}`));
      void closeThread(worker);
    });
  });

/** Starts the thread at `url` (its models loaded and warmed) and resolves once it is ready. */
export const startModelThread = async <Job, Outcome>(url: URL, setup: unknown, what: string): Promise<ModelThread<Job, Outcome>> => {
  const pending = new Map<number, Pending<Outcome>>();
  let nextId = 0;
  let closed = false;
  let worker: Promise<Worker> | undefined;
  const current = () => {
    if (worker) return worker;
    const started = spawn(url, setup, what, pending, () => {
      // Only this thread's end clears it: a later one may already have taken its place.
      if (worker === started) worker = undefined;
    });
    worker = started;
    return started;
  };
  await current();
  return {
    run: async (job) => {
      if (closed) throw new Error(`the ${what} thread is closed`);
      const thread = await current();
      const id = nextId++;
      return new Promise<Outcome>((resolve, reject) => {
        pending.set(id, { resolve, reject });
        thread.postMessage({ kind: "job", id, job } satisfies ModelThreadRequest<Job>);
      });
    },
    terminate: async () => {
      closed = true;
      const running = worker;
      worker = undefined;
      if (running) await closeThread(await running);
    },
  };
};
