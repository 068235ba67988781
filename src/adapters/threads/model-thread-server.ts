import { readlinkSync } from "node:fs";
import { getPriority, setPriority } from "node:os";
import { parentPort, workerData } from "node:worker_threads";
import { type CloseRequest, isCloseRequest } from "./close-thread.ts";

/**
 * The thread side of a model thread: models load and warm here, and every job (decoding, the
 * models, which onnxruntime-node runs on the calling thread, and the per-pixel loops) runs here,
 * so the event loop that serves every other request never waits on a photo. Loaded by Node with
 * type stripping (erasable syntax only).
 */
export type ModelThreadRequest<Job> = { readonly kind: "job"; readonly id: number; readonly job: Job } | CloseRequest;

export type ModelThreadMessage<Outcome> =
  | { readonly kind: "ready" }
  | { readonly kind: "done"; readonly id: number; readonly outcome: Outcome }
  | { readonly kind: "failed"; readonly id: number; readonly message: string };

/**
 * A thread may yield the CPU to the event loop: on Linux, niceness is per thread and inherited by
 * the threads it starts (onnxruntime's pool is made here), so a long model run cannot delay the
 * answers to other requests, /healthz included. Relative to the process's own niceness: a
 * service started under `nice` would otherwise run this thread at its event loop's priority.
 * Elsewhere the priority stays as it is.
 */
const LOWEST_PRIORITY = 19;
const lowerOwnPriority = (niceness: number) => {
  if (niceness === 0) return;
  try {
    const thread = Number(readlinkSync("/proc/thread-self").split("/").pop());
    setPriority(thread, Math.min(LOWEST_PRIORITY, getPriority(thread) + niceness));
  } catch {
    // No /proc/thread-self (not Linux), or not allowed: the thread runs at the process's priority.
  }
};

/**
 * Serves jobs with what `load` returns (loaded and warmed), when this module runs as a worker,
 * `niceness` below the process's priority.
 */
export const serveModelThread = async <Setup, Job, Outcome>(
  niceness: number,
  load: (setup: Setup) => Promise<(job: Job) => Promise<Outcome>>,
): Promise<void> => {
  const port = parentPort;
  if (port === null) return;
  lowerOwnPriority(niceness);
  const handle = await load(workerData as Setup);
  port.on("message", (request: ModelThreadRequest<Job>) => {
    if (isCloseRequest(request)) return port.close();
    const { id, job } = request;
    handle(job).then(
      // Copied, not transferred: sharp's output buffers are external memory that cannot be moved.
      (outcome) => port.postMessage({ kind: "done", id, outcome } satisfies ModelThreadMessage<Outcome>),
      (error: unknown) =>
        port.postMessage({ kind: "failed", id, message: error instanceof Error ? error.message : String(error) } satisfies ModelThreadMessage<Outcome>),
    );
  });
  port.postMessage({ kind: "ready" } satisfies ModelThreadMessage<Outcome>);
};
