/**
 * A byte budget for the requests that wait on an engine: each admitted request holds an estimate
 * of the memory it will take (its body as read, parsed and decoded) until its response is done.
 * It never waits: a request that does not fit is refused, so a burst costs memory up to the budget
 * and no more.
 */
export interface AdmissionBudget {
  /** Takes `bytes` if they fit, and gives back a function that returns them; undefined if full. */
  readonly tryTake: (bytes: number) => (() => void) | undefined;
  /** Seconds after which a refused request may find room: about how long admitted requests hold their bytes. */
  readonly retryAfterSeconds: () => number;
  readonly inUse: () => number;
  readonly limit: number;
}

const MiB = 1024 * 1024;

/**
 * The default: an eighth of the memory this process may use (its cgroup limit, else the
 * machine's), between 64 MiB and 1 GiB. Requests beyond it get 503 before their bodies are read.
 */
export const defaultAdmissionBudgetBytes = (memoryBytes: number): number => Math.min(1024 * MiB, Math.max(64 * MiB, Math.floor(memoryBytes / 8)));

export const makeAdmissionBudget = (limit: number): AdmissionBudget => {
  let inUse = 0;
  /** Moving average of how long a request holds its bytes. */
  let meanHoldMs = 0;
  return {
    limit,
    inUse: () => inUse,
    retryAfterSeconds: () => Math.max(1, Math.ceil(meanHoldMs / 1000)),
    tryTake: (bytes) => {
      // One request larger than the whole budget still runs when nothing else holds any.
      if (inUse > 0 && inUse + bytes > limit) return undefined;
      inUse += bytes;
      const takenAt = performance.now();
      let returned = false;
      return () => {
        if (returned) return;
        returned = true;
        inUse -= bytes;
        const held = performance.now() - takenAt;
        meanHoldMs = meanHoldMs === 0 ? held : 0.8 * meanHoldMs + 0.2 * held;
      };
    },
  };
};
