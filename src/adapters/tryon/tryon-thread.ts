import type { TryOnSettings } from "../../domain/tryon-settings.ts";
import { serveModelThread } from "../threads/model-thread-server.ts";
import { loadTryOnPipeline, type TryOnOutcome } from "./tryon-pipeline.ts";

/**
 * The try-on's own thread: every stage of the pipeline (decoding, the models, the warp and
 * compositing graphs, and the per-pixel loops) runs here, off the event loop.
 */
export interface TryOnThreadSetup {
  readonly threads: number;
}

export interface TryOnJob {
  readonly person: Uint8Array;
  readonly clothing: Uint8Array;
  readonly settings: TryOnSettings;
}

/** A try-on runs for seconds on every core: it yields to the event loop (model-thread-server.ts). */
const TRYON_NICENESS = 10;

await serveModelThread(TRYON_NICENESS, async (setup: TryOnThreadSetup) => {
  const pipeline = await loadTryOnPipeline(setup.threads);
  await pipeline.warmUp();
  return (job: TryOnJob): Promise<TryOnOutcome> => pipeline.run(job.person, job.clothing, job.settings);
});
