import { readlinkSync } from "node:fs";
import { getPriority, setPriority } from "node:os";
import { parentPort, workerData } from "node:worker_threads";
import type { TryOnSettings } from "../../domain/tryon-settings.ts";
import { loadTryOnPipeline, type TryOnOutcome } from "./tryon-pipeline.ts";

/**
 * The try-on's own thread. Every stage of the pipeline (decoding, the models, the warp and
 * compositing graphs, which onnxruntime-node runs on the calling thread, and the per-pixel
 * loops) runs here, so the event loop that serves every other request never waits on a photo.
 * Loaded by Node with type stripping (erasable syntax only).
 */
export interface TryOnThreadSetup {
  readonly threads: number;
}

export interface TryOnJob {
  readonly id: number;
  readonly person: Uint8Array;
  readonly clothing: Uint8Array;
  readonly settings: TryOnSettings;
}

export type TryOnThreadMessage =
  | { readonly kind: "ready" }
  | { readonly kind: "done"; readonly id: number; readonly outcome: TryOnOutcome }
  | { readonly kind: "failed"; readonly id: number; readonly message: string };

/**
 * This thread yields the CPU to the event loop: on Linux, niceness is per thread and inherited by
 * the threads it starts (onnxruntime's pool is made here), so a busy try-on cannot delay the
 * answers to other requests, /healthz included. Relative to the process's own niceness: a
 * service started under `nice` would otherwise run this thread at its event loop's priority.
 * Elsewhere the priority stays as it is.
 */
const TRYON_NICENESS = 10;
const LOWEST_PRIORITY = 19;
const lowerOwnPriority = () => {
  try {
    const thread = Number(readlinkSync("/proc/thread-self").split("/").pop());
    setPriority(thread, Math.min(LOWEST_PRIORITY, getPriority(thread) + TRYON_NICENESS));
  } catch {
    // No /proc/thread-self (not Linux), or not allowed: the thread runs at the process's priority.
  }
};

const port = parentPort;
if (port !== null) {
  lowerOwnPriority();
  const setup = workerData as TryOnThreadSetup;
  const pipeline = await loadTryOnPipeline(setup.threads);
  await pipeline.warmUp();
  port.on("message", (job: TryOnJob) => {
    pipeline.run(job.person, job.clothing, job.settings).then(
      // Copied, not transferred: sharp's output buffers are external memory that cannot be moved.
      (outcome) => port.postMessage({ kind: "done", id: job.id, outcome } satisfies TryOnThreadMessage),
      (error: unknown) =>
        port.postMessage({ kind: "failed", id: job.id, message: error instanceof Error ? error.message : String(error) } satisfies TryOnThreadMessage),
    );
  });
  port.postMessage({ kind: "ready" } satisfies TryOnThreadMessage);
}
