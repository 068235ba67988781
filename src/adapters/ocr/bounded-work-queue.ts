/**
 * Admission control for an engine: at most `concurrency` jobs run, at most `maxQueued` wait,
 * and a running job is aborted at its deadline. Engines run CPU-bound work that cannot be
 * preempted, so a full queue is refused at once (the caller answers 503) rather than letting
 * latency grow without bound.
 */
export class QueueFull extends Error {
  override readonly name = "QueueFull";
}
export class DeadlineExceeded extends Error {
  override readonly name = "DeadlineExceeded";
}

interface Waiter {
  readonly start: () => void;
  readonly cancel: () => void;
}

export interface BoundedWorkQueueOptions {
  readonly concurrency: number;
  readonly maxQueued: number;
  /** Counted from the moment the job starts running, not from when it was queued. */
  readonly deadlineMs: number;
}

export class BoundedWorkQueue {
  private running = 0;
  private readonly waiting: Waiter[] = [];

  private readonly options: BoundedWorkQueueOptions;


  constructor(options: BoundedWorkQueueOptions) {

    this.options = options;

  }

  /** Jobs waiting for a slot; used to suggest a Retry-After. */
  get queued(): number {
    return this.waiting.length;
  }

  /**
   * Runs `job` once a slot is free. The job's signal fires at the deadline or when the caller's
   * signal does; the job must then release what it holds (e.g. terminate a busy worker).
   */
  run<A>(job: (signal: AbortSignal) => Promise<A>, callerSignal?: AbortSignal): Promise<A> {
    return new Promise<A>((resolve, reject) => {
      const start = () => {
        this.running++;
        const controller = new AbortController();
        const onCallerAbort = () => controller.abort(callerSignal?.reason);
        callerSignal?.addEventListener("abort", onCallerAbort, { once: true });
        const timer = setTimeout(
          () => controller.abort(new DeadlineExceeded(`ran past ${this.options.deadlineMs} ms`)),
          this.options.deadlineMs,
        );
        const aborted = new Promise<never>((_, rejectAborted) => {
          controller.signal.addEventListener("abort", () => rejectAborted(controller.signal.reason), { once: true });
        });
        Promise.race([job(controller.signal), aborted])
          .then(resolve, reject)
          .finally(() => {
            clearTimeout(timer);
            callerSignal?.removeEventListener("abort", onCallerAbort);
            this.running--;
            this.waiting.shift()?.start();
          });
      };
      if (callerSignal?.aborted) return reject(callerSignal.reason);
      if (this.running < this.options.concurrency) return start();
      if (this.waiting.length >= this.options.maxQueued) return reject(new QueueFull("queue full"));
      const waiter: Waiter = {
        start: () => {
          callerSignal?.removeEventListener("abort", waiter.cancel);
          start();
        },
        cancel: () => {
          const index = this.waiting.indexOf(waiter);
          if (index >= 0) this.waiting.splice(index, 1);
          reject(callerSignal?.reason);
        },
      };
      callerSignal?.addEventListener("abort", waiter.cancel, { once: true });
      this.waiting.push(waiter);
    });
  }
}
