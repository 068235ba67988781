import { createWorker, type Worker } from "tesseract.js";
import { type TesseractModel, workerSetupFor } from "./tesseract-language-data.ts";

/**
 * tesseract.js workers, one model each. A worker holds one model because tesseract.js reads
 * every language of a worker from a single `langPath`, while each language ships in its own
 * npm package; switching a worker's language would mean a fresh worker anyway (~0.3 s).
 *
 * How many run at once is the caller's business (a BoundedWorkQueue sized to the cores); this
 * pool keeps idle workers warm, up to `maxIdle`, dropping the least recently used first.
 */
export class WorkerStartFailed extends Error {
  override readonly name = "WorkerStartFailed";
}

interface IdleWorker {
  readonly model: TesseractModel;
  readonly worker: Worker;
}

export class TesseractWorkerPool {
  /** Least recently used first. */
  private idle: IdleWorker[] = [];
  private readonly busy = new Set<Worker>();
  private closed = false;

  private readonly maxIdle: number;


  private constructor(maxIdle: number) {

    this.maxIdle = maxIdle;

  }

  /** Starts `count` workers of each model given, so that their first requests are warm. */
  static async start(warm: ReadonlyArray<readonly [TesseractModel, number]>, maxIdle: number): Promise<TesseractWorkerPool> {
    const pool = new TesseractWorkerPool(maxIdle);
    try {
      const started = await Promise.all(
        warm.flatMap(([model, count]) =>
          Array.from({ length: count }, async () => ({ model, worker: await pool.spawn(model) })),
        ),
      );
      pool.idle.push(...started);
    } catch (cause) {
      await pool.terminate();
      throw cause;
    }
    return pool;
  }

  private async spawn(model: TesseractModel): Promise<Worker> {
    const { oem, options, initConfig, parameters } = workerSetupFor(model);
    let worker: Worker;
    try {
      worker = await createWorker(model, oem, options, initConfig);
    } catch (cause) {
      throw new WorkerStartFailed(`tesseract worker for ${model} did not start: ${String(cause)}`, { cause });
    }
    await worker.setParameters(parameters);
    return worker;
  }

  /**
   * Lends a worker of `model` to `use`. If `signal` fires first the worker is terminated (its
   * job cannot be cancelled otherwise) and the call rejects with the signal's reason.
   */
  async withWorker<A>(model: TesseractModel, signal: AbortSignal, use: (worker: Worker) => Promise<A>): Promise<A> {
    signal.throwIfAborted();
    if (this.closed) throw new WorkerStartFailed("the tesseract worker pool is closed");
    const index = this.idle.findIndex((entry) => entry.model === model);
    const worker = index >= 0 ? this.idle.splice(index, 1)[0]!.worker : await this.spawn(model);
    this.busy.add(worker);
    const onAbort = () => {
      this.busy.delete(worker);
      void worker.terminate();
    };
    if (signal.aborted) onAbort();
    signal.addEventListener("abort", onAbort, { once: true });
    try {
      signal.throwIfAborted();
      const result = await use(worker);
      signal.throwIfAborted();
      return result;
    } finally {
      signal.removeEventListener("abort", onAbort);
      if (this.busy.delete(worker)) this.release({ model, worker });
    }
  }

  private release(entry: IdleWorker): void {
    if (this.closed) {
      void entry.worker.terminate();
      return;
    }
    this.idle.push(entry);
    while (this.idle.length > this.maxIdle) void this.idle.shift()?.worker.terminate();
  }

  async terminate(): Promise<void> {
    this.closed = true;
    const workers = [...this.idle.map((entry) => entry.worker), ...this.busy];
    this.idle = [];
    this.busy.clear();
    await Promise.all(workers.map((worker) => worker.terminate()));
  }
}
