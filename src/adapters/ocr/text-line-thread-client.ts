import { Effect } from "effect";
import { DependencyUnavailable } from "../../ports/errors.ts";
import { startModelThread } from "../threads/model-thread.ts";
import type { GreyImage, TextLines } from "./text-line-analysis.ts";

const threadUrl = new URL("./text-line-thread.ts", import.meta.url);

/**
 * The event loop's side of the text-line thread (see model-thread.ts for its life and death). The
 * tilt search visits every inked pixel of an 800-pixel grey copy at some sixty angles: 100-130 ms
 * for a page full of ink, during which, on the event loop, /healthz waited 106-136 ms.
 */
export interface TextLineThread {
  readonly measure: (image: GreyImage) => Promise<TextLines>;
  readonly terminate: () => Promise<void>;
}

/** The thread, started for an OCR engine's layer (`dependency` names the engine when it cannot start) and closed with its scope. */
export const textLineThread = (dependency: string) =>
  Effect.acquireRelease(
    Effect.tryPromise({
      try: async (): Promise<TextLineThread> => {
        const thread = await startModelThread<GreyImage, TextLines>(threadUrl, undefined, "text-line");
        return { measure: thread.run, terminate: thread.terminate };
      },
      catch: (cause) => new DependencyUnavailable({ dependency, cause }),
    }),
    (thread) => Effect.promise(() => thread.terminate()),
  );
