import { Worker } from "node:worker_threads";
import type { TryOnSettings } from "../../domain/tryon-settings.ts";
import type { TryOnOutcome } from "./tryon-pipeline.ts";
import type { TryOnJob, TryOnThreadMessage, TryOnThreadSetup } from "./tryon-thread.ts";

/**
 * The event loop's side of the try-on thread: posts a job, awaits its outcome. A thread that
 * dies (an out-of-memory abort, a native fault) fails the jobs it held and is started again on
 * the next job, with its models loaded afresh.
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

const spawn = (setup: TryOnThreadSetup, pending: Map<number, Pending>, onExit: () => void): Promise<Worker> =>
  new Promise((resolve, reject) => {
    const worker = new Worker(threadUrl, { workerData: setup });
    let ready = false;
    const fail = (error: Error) => {
      for (const job of pending.values()) job.reject(error);
      pending.clear();
      onExit();
      if (!ready) reject(error);
    };
    worker.on("error", fail);
    worker.on("exit", (code) => fail(new Error(`the try-on thread exited with code ${code}`)));
    worker.on("message", (message: TryOnThreadMessage) => {
      if (message.kind === "ready") {
        ready = true;
        return resolve(worker);
      }
      const job = pending.get(message.id);
      pending.delete(message.id);
      if (message.kind === "done") job?.resolve(message.outcome);
      else job?.reject(new Error(message.message));
    });
  });

export const startTryOnThread = async (setup: TryOnThreadSetup): Promise<TryOnThread> => {
  const pending = new Map<number, Pending>();
  let nextId = 0;
  let closed = false;
  let worker: Promise<Worker> | undefined;
  const current = () => (worker ??= spawn(setup, pending, () => (worker = undefined)));
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
