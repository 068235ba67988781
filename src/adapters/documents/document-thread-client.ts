import { Worker } from "node:worker_threads";
import type { DocumentJob, DocumentJobResult, DocumentThreadMessage, DocumentThreadSetup } from "./document-thread.ts";

/**
 * The event loop's side of the document thread. The thread starts with the first job and stops
 * after `idleMs` without one, so an idle service holds neither it nor PDFium's memory. It runs
 * one job at a time, handed over by the caller's engine capacity (one slot), so a job's deadline
 * counts from when it starts: a job past it terminates the thread (WebAssembly cannot be
 * interrupted otherwise) and fails alone; the next job starts a fresh thread. So does a job that
 * leaves the thread unfit: PDFium at its memory cap, aborted or trapped ("poisoned"), the thread
 * past its own heap limit, or any failure that is not the client's file: a thread is kept only
 * while its jobs end as expected, and only those keep it from its idle stop.
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

/** The document needs more memory than the thread may use; the message says how much it may. */
export class DocumentTooCostly extends Error {
  override readonly name = "DocumentTooCostly";
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

export interface DocumentThreadOptions extends DocumentThreadSetup {
  readonly idleMs: number;
}

/** The thread's own JavaScript heap (PDFium's memory is apart, capped by `pdfiumMemoryBytes`). */
const threadHeapMb = 64;

export const documentThread = (options: DocumentThreadOptions): DocumentThread => {
  const setup: DocumentThreadSetup = { pdfiumMemoryBytes: options.pdfiumMemoryBytes };
  const tooCostly = (limitMiB: number) => new DocumentTooCostly(`it needs more than the ${limitMiB} MiB the document engine may use`);
  const pdfiumMiB = Math.round(options.pdfiumMemoryBytes / 2 ** 20);
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
    const started = new Worker(threadUrl, { workerData: setup, resourceLimits: { maxOldGenerationSizeMb: threadHeapMb } });
    started.on(
      "error",
      (error: Error & { code?: string }) => worker === started && stop(error.code === "ERR_WORKER_OUT_OF_MEMORY" ? tooCostly(threadHeapMb) : error),
    );
    started.on("exit", (code) => worker === started && stop(new Error(`the document thread exited with code ${code}`)));
    started.on("message", (message: DocumentThreadMessage) => {
      const job = pending.get(message.id);
      if (message.kind === "started") return job?.started();
      pending.delete(message.id);
      if (message.kind === "done") job?.resolve(message.result);
      else if (message.kind === "refused") job?.reject(new DocumentRefused(message.message));
      else if (message.kind === "failed") job?.reject(new Error(message.message));
      // PDFium aborted or trapped on the client's file: a file it cannot read, said without its internals.
      else job?.reject(message.outOfMemory ? tooCostly(pdfiumMiB) : new DocumentRefused("the PDF is malformed: PDFium stopped while reading it"));
      if (message.kind === "poisoned" || message.kind === "failed") stop(new Error(`the document thread was discarded: ${message.message}`));
      else if (pending.size === 0) idleTimer = setTimeout(() => pending.size === 0 && stop(new Error("idle")), options.idleMs).unref();
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
