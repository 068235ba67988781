import { Worker } from "node:worker_threads";
import type { DocumentJob, DocumentJobResult, DocumentThreadMessage } from "./document-thread.ts";

/**
 * The event loop's side of the document thread. The thread starts with the first job and stops
 * after `idleMs` without one, so an idle service holds neither it nor PDFium's memory. It runs
 * one job at a time, handed over by the caller's engine capacity (one slot), so a job's deadline
 * counts from when it starts: a job past it terminates the thread (WebAssembly cannot be
 * interrupted otherwise) and fails alone; the next job starts a fresh thread.
 */
const threadUrl = new URL("./document-thread.ts", import.meta.url);
/**
 * How long a job may wait for the thread to say it has started it: a fresh thread loads its code
 * and PDFium first. The job's own deadline counts from that word.
 */
const threadStartMs = 5000;

/** The client's file cannot be used; the message says why, for the client. */
export class DocumentRefused extends Error {
  override readonly name = "DocumentRefused";
}

/** A job ran past its deadline and was stopped. */
export class DocumentJobTimeout extends Error {
  override readonly name = "DocumentJobTimeout";
}

type Job = DocumentJob extends infer J ? (J extends DocumentJob ? Omit<J, "id"> : never) : never;

interface Pending {
  /** The thread has begun the job: its deadline starts now. */
  readonly started: () => void;
  readonly resolve: (result: DocumentJobResult) => void;
  readonly reject: (error: Error) => void;
}

export interface DocumentThread {
  readonly run: <R extends DocumentJobResult>(job: Job, deadlineMs: number) => Promise<R>;
  readonly terminate: () => Promise<void>;
}

export const documentThread = (options: { readonly idleMs: number }): DocumentThread => {
  const pending = new Map<number, Pending>();
  let nextId = 0;
  let worker: Worker | undefined;
  let idleTimer: NodeJS.Timeout | undefined;
  let closed = false;

  const failAll = (error: Error) => {
    for (const job of pending.values()) job.reject(error);
    pending.clear();
  };
  const stop = (error: Error) => {
    const running = worker;
    worker = undefined;
    failAll(error);
    if (running) void running.terminate();
  };
  const current = (): Worker => {
    if (worker) return worker;
    const started = new Worker(threadUrl);
    started.on("error", (error) => worker === started && stop(error));
    started.on("exit", (code) => worker === started && stop(new Error(`the document thread exited with code ${code}`)));
    started.on("message", (message: DocumentThreadMessage) => {
      const job = pending.get(message.id);
      if (message.kind === "started") return job?.started();
      pending.delete(message.id);
      if (message.kind === "done") job?.resolve(message.result);
      else job?.reject(message.kind === "refused" ? new DocumentRefused(message.message) : new Error(message.message));
      if (pending.size === 0) idleTimer = setTimeout(() => pending.size === 0 && stop(new Error("idle")), options.idleMs).unref();
    });
    worker = started;
    return started;
  };

  return {
    run: <R extends DocumentJobResult>(job: Job, deadlineMs: number) => {
      if (closed) return Promise.reject(new Error("the document thread is closed"));
      if (pending.size > 0) return Promise.reject(new Error("the document thread runs one job at a time"));
      clearTimeout(idleTimer);
      const thread = current();
      const id = nextId++;
      return new Promise<R>((resolve, reject) => {
        let deadline: NodeJS.Timeout | undefined;
        const arm = (ms: number) => {
          clearTimeout(deadline);
          deadline = setTimeout(() => {
            if (!pending.has(id)) return;
            pending.delete(id);
            reject(new DocumentJobTimeout(`the ${job.kind} job ran past ${deadlineMs} ms`));
            stop(new Error("the document thread was stopped: another job ran past its deadline"));
          }, ms);
        };
        arm(threadStartMs + deadlineMs);
        pending.set(id, {
          started: () => arm(deadlineMs),
          resolve: (result) => {
            clearTimeout(deadline);
            resolve(result as R);
          },
          reject: (error) => {
            clearTimeout(deadline);
            reject(error);
          },
        });
        thread.postMessage({ ...job, id } as DocumentJob);
      });
    },
    terminate: async () => {
      closed = true;
      clearTimeout(idleTimer);
      const running = worker;
      worker = undefined;
      failAll(new Error("the document thread is closed"));
      if (running) await running.terminate();
    },
  };
};
