import type { TryOnSettings } from "../../domain/tryon-settings.ts";
import { startModelThread } from "../threads/model-thread.ts";
import type { TryOnOutcome } from "./tryon-pipeline.ts";
import type { TryOnJob, TryOnThreadSetup } from "./tryon-thread.ts";

/** The event loop's side of the try-on thread (see model-thread.ts for its life and death). */
const threadUrl = new URL("./tryon-thread.ts", import.meta.url);

export interface TryOnThread {
  readonly run: (person: Uint8Array, clothing: Uint8Array, settings: TryOnSettings) => Promise<TryOnOutcome>;
  readonly terminate: () => Promise<void>;
}

export const startTryOnThread = async (setup: TryOnThreadSetup): Promise<TryOnThread> => {
  const thread = await startModelThread<TryOnJob, TryOnOutcome>(threadUrl, setup, "try-on");
  return { run: (person, clothing, settings) => thread.run({ person, clothing, settings }), terminate: thread.terminate };
};
