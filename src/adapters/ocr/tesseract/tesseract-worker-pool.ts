import { EventEmitter } from "node:events";
import { createWorker, type Worker } from "tesseract.js";
import { estimatedWorkerBytes, missingModels, modelKey, type TesseractModel, type TesseractWorkerSetup, workerSetupFor } from "./tesseract-language-data.ts";

/**
 * tesseract.js workers, one model each (a language, several read together, or OSD). A worker
 * starts on first use of its model (~0.3-1 s, the model read from its npm package) and is kept
 * idle afterwards while the idle workers fit `idleBudgetBytes`, the least recently used dropped
 * first, so that the service holds the languages in use, not all it offers.
 *
 * How many run at once is the caller's business (the engine capacity, sized to the cores).
 */
export class WorkerStartFailed extends Error {
  override readonly name = "WorkerStartFailed";
}

/**
 * Starts a tesseract.js worker. Without an `errorHandler` tesseract.js rethrows a failed job
 * inside its message listener, which would crash the process (the job's own promise still
 * rejects and is handled there). A failure to load or initialise the model reaches that handler
 * only, and the promise of `createWorker` then never settles: the handler fails the start
 * instead, so that a worker that cannot start never holds an engine slot.
 */
export const startWorker = async (setup: TesseractWorkerSetup): Promise<Worker> => {
  let starting = true;
  let failStart: (reason: Error) => void = () => undefined;
  const failed = new Promise<never>((_, reject) => (failStart = reject));
  failed.catch(() => undefined);
  const errorHandler = (error: unknown) => {
    if (starting) failStart(new Error(String(error)));
  };
  try {
    const worker = await Promise.race([createWorker(setup.langs, setup.oem, { ...setup.options, errorHandler }, setup.initConfig), failed]);
    await Promise.race([worker.setParameters(setup.parameters), failed]).catch(async (error: unknown) => {
      await worker.terminate();
      throw error;
    });
    return worker;
  } finally {
    starting = false;
  }
};

/**
 * The Node thread under a tesseract.js worker: the library keeps it as `worker` on the object it
 * returns (createWorker.js) without typing it, and never listens for its end itself.
 */
const threadOf = (worker: Worker): EventEmitter | undefined => {
  const thread = (worker as unknown as { readonly worker?: unknown }).worker;
  return thread instanceof EventEmitter ? thread : undefined;
};

interface IdleWorker {
  readonly key: string;
  readonly worker: Worker;
  readonly bytes: number;
}

export class TesseractWorkerPool {
  readonly imageFormat = "png";
  /** Least recently used first. */
  private idle: IdleWorker[] = [];
  private readonly busy = new Set<Worker>();
  private closed = false;

  private readonly idleBudgetBytes: number;

  private constructor(idleBudgetBytes: number) {
    this.idleBudgetBytes = idleBudgetBytes;
  }

  /** Starts `count` workers of each model given, so that their first requests are warm. */
  static async start(warm: ReadonlyArray<readonly [TesseractModel, number]>, idleBudgetBytes: number): Promise<TesseractWorkerPool> {
    const pool = new TesseractWorkerPool(idleBudgetBytes);
    try {
      const started = await Promise.all(warm.flatMap(([model, count]) => Array.from({ length: count }, () => pool.spawn(model))));
      for (const entry of started) pool.release(entry);
    } catch (cause) {
      await pool.terminate();
      throw cause;
    }
    return pool;
  }

  /** Bytes the idle workers are expected to hold, for metrics and tests. */
  get idleBytes(): number {
    return this.idle.reduce((sum, entry) => sum + entry.bytes, 0);
  }

  /** The models of the idle workers, least recently used first. */
  get idleModels(): ReadonlyArray<string> {
    return this.idle.map((entry) => entry.key);
  }

  private async spawn(model: TesseractModel): Promise<IdleWorker> {
    let worker: Worker;
    try {
      const missing = await missingModels(model === "osd" ? ["osd"] : model);
      if (missing.length > 0) throw new Error(`no model for ${missing.join(", ")}`);
      worker = await startWorker(await workerSetupFor(model));
    } catch (cause) {
      throw new WorkerStartFailed(`tesseract worker for ${modelKey(model)} did not start: ${String(cause)}`, { cause });
    }
    return { key: modelKey(model), worker, bytes: await estimatedWorkerBytes(model) };
  }

  /**
   * Lends a worker of `model` to `use`. If `signal` fires first the worker is terminated (its
   * job cannot be cancelled otherwise) and the call rejects with the signal's reason. A worker
   * whose thread dies during the job (killed, out of memory) fails the call at once, instead of
   * leaving it to wait for the deadline (tesseract.js would never settle it); and a worker whose
   * job failed in any way is terminated, not kept: its WebAssembly module may have aborted, and a
   * poisoned worker must never answer again. The next job gets a fresh one.
   */
  async withWorker<A>(model: TesseractModel, signal: AbortSignal, use: (worker: Worker) => Promise<A>): Promise<A> {
    signal.throwIfAborted();
    if (this.closed) throw new WorkerStartFailed("the tesseract worker pool is closed");
    const key = modelKey(model);
    const index = this.idle.findIndex((entry) => entry.key === key);
    const entry = index >= 0 ? this.idle.splice(index, 1)[0]! : await this.spawnUnless(signal, model);
    const { worker } = entry;
    this.busy.add(worker);
    const discard = () => {
      this.busy.delete(worker);
      void worker.terminate();
    };
    if (signal.aborted) discard();
    signal.addEventListener("abort", discard, { once: true });
    const thread = threadOf(worker);
    let onExit: (code: number) => void = () => undefined;
    const died = new Promise<never>((_, reject) => {
      onExit = (code) => reject(new Error(`the tesseract worker's thread exited (code ${code}) during the job`));
      thread?.once("exit", onExit);
    });
    try {
      signal.throwIfAborted();
      const result = await Promise.race([use(worker), died]);
      signal.throwIfAborted();
      return result;
    } catch (error) {
      discard();
      throw signal.aborted ? signal.reason : error;
    } finally {
      thread?.off("exit", onExit);
      signal.removeEventListener("abort", discard);
      if (this.busy.delete(worker)) this.release(entry);
    }
  }

  /**
   * A new worker of `model`, unless `signal` fires first: then the call rejects at once with the
   * signal's reason (the caller's deadline holds while a model loads), and the worker, once
   * started, is kept idle for the next request like any other.
   */
  private spawnUnless(signal: AbortSignal, model: TesseractModel): Promise<IdleWorker> {
    const spawned = this.spawn(model);
    return new Promise<IdleWorker>((resolve, reject) => {
      const onAbort = () => {
        reject(signal.reason);
        spawned.then(
          (entry) => this.release(entry),
          () => undefined,
        );
      };
      signal.addEventListener("abort", onAbort, { once: true });
      spawned.then(
        (entry) => {
          signal.removeEventListener("abort", onAbort);
          if (signal.aborted) return;
          resolve(entry);
        },
        (error: unknown) => {
          signal.removeEventListener("abort", onAbort);
          reject(error);
        },
      );
    });
  }

  /** Keeps the worker idle, most recently used, and drops the least recently used beyond the budget (never the last one). */
  private release(entry: IdleWorker): void {
    if (this.closed) {
      void entry.worker.terminate();
      return;
    }
    this.idle.push(entry);
    while (this.idle.length > 1 && this.idleBytes > this.idleBudgetBytes) void this.idle.shift()?.worker.terminate();
  }

  async terminate(): Promise<void> {
    this.closed = true;
    const workers = [...this.idle.map((entry) => entry.worker), ...this.busy];
    this.idle = [];
    this.busy.clear();
    await Promise.all(workers.map((worker) => worker.terminate()));
  }
}
