import { Effect } from "effect";
import { EngineTimeout } from "../../ports/errors.ts";

const isTimeout = (cause: unknown) => cause instanceof Error && /timeout/i.test(cause.message);

/**
 * Runs a libvips pipeline (its pixels in libvips' threads, off the event loop): a pipeline stopped
 * by its `timeout` is EngineTimeout, any other failure means what `otherwise` says of it.
 */
export const libvipsExecutor =
  (timeoutSeconds: number) =>
  <A, E>(work: () => Promise<A>, otherwise: (cause: unknown) => Effect.Effect<never, E>): Effect.Effect<A, E | EngineTimeout> =>
    Effect.tryPromise({ try: work, catch: (cause) => cause }).pipe(
      Effect.catch((cause): Effect.Effect<never, E | EngineTimeout> =>
        isTimeout(cause) ? Effect.fail(new EngineTimeout({ deadlineMs: timeoutSeconds * 1000 })) : otherwise(cause),
      ),
    );
