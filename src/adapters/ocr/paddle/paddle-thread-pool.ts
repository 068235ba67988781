import { Worker } from "node:worker_threads";
import { closeThread } from "../../threads/close-thread.ts";
import type { PaddleJob, PaddleThreadMessage, PaddleThreadSetup, RecognisedLine } from "./paddle-ocr-thread.ts";

export interface PaddleReading {
  readonly lines: ReadonlyArray<RecognisedLine>;
  /** The page is turned 180 degrees: read it again turned back. */
  readonly upsideDown: boolean;
}

/**
 * Inference threads for the PaddleOCR engine, each with its own ONNX sessions. How many jobs
 * run at once is the caller's business (the engine capacity, of the same size); a job takes an
 * idle thread, and a thread whose job is abandoned is closed (it exits once that job ends:
 * close-thread.ts) and replaced on demand.
 */
export class ThreadStartFailed extends Error {
  override readonly name = "ThreadStartFailed";
}

const threadUrl = new URL("./paddle-ocr-thread.ts", import.meta.url);

interface Thread {
  readonly worker: Worker;
  readonly pending: Map<number, { resolve: (result: PaddleReading) => void; reject: (error: Error) => void }>;
}

export class PaddleThreadPool {
  private idle: Thread[] = [];
  private readonly all = new Set<Thread>();
  private nextId = 0;
  private closed = false;

  private readonly setup: PaddleThreadSetup;

  private constructor(setup: PaddleThreadSetup) {
    this.setup = setup;
  }

  static async start(setup: PaddleThreadSetup, warm: number): Promise<PaddleThreadPool> {
    const pool = new PaddleThreadPool(setup);
    try {
      pool.idle = await Promise.all(Array.from({ length: warm }, () => pool.spawn()));
    } catch (cause) {
      await pool.terminate();
      throw cause;
    }
    return pool;
  }

  private spawn(): Promise<Thread> {
    return new Promise((resolve, reject) => {
      const worker = new Worker(threadUrl, { workerData: this.setup });
      const thread: Thread = { worker, pending: new Map() };
      this.all.add(thread);
      const fail = (error: Error) => {
        this.all.delete(thread);
        this.idle = this.idle.filter((entry) => entry !== thread);
        for (const job of thread.pending.values()) job.reject(error);
        thread.pending.clear();
        reject(new ThreadStartFailed(`paddle inference thread stopped: ${error.message}`, { cause: error }));
      };
      worker.on("error", fail);
      worker.on("exit", (code) => fail(new Error(`exited with code ${code}`)));
      worker.on("message", (message: PaddleThreadMessage) => {
        if (message.kind === "ready") return resolve(thread);
        const job = thread.pending.get(message.id);
        thread.pending.delete(message.id);
        if (message.kind === "done") job?.resolve({ lines: message.lines, upsideDown: message.upsideDown });
        else job?.reject(new Error(message.message));
      });
    });
  }

  /** Runs `job` on an idle thread; if `signal` fires first the thread is terminated. */
  async run(job: Omit<PaddleJob, "id">, signal: AbortSignal): Promise<PaddleReading> {
    signal.throwIfAborted();
    if (this.closed) throw new ThreadStartFailed("the paddle thread pool is closed");
    const thread = this.idle.pop() ?? (await this.spawn());
    const id = this.nextId++;
    const onAbort = () => {
      this.all.delete(thread);
      for (const pending of thread.pending.values()) pending.reject(new Error("the paddle job was abandoned"));
      thread.pending.clear();
      void closeThread(thread.worker);
    };
    signal.addEventListener("abort", onAbort, { once: true });
    try {
      signal.throwIfAborted();
      return await new Promise<PaddleReading>((resolve, reject) => {
        thread.pending.set(id, { resolve, reject });
        thread.worker.postMessage({ ...job, id } satisfies PaddleJob);
      });
    } finally {
      signal.removeEventListener("abort", onAbort);
      if (this.all.has(thread) && !this.closed) this.idle.push(thread);
    }
  }

  async terminate(): Promise<void> {
    this.closed = true;
    const threads = [...this.all];
    this.all.clear();
    this.idle = [];
    await Promise.all(threads.map((thread) => closeThread(thread.worker)));
  }
}
