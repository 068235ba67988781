import { Context, Effect } from "effect";

/**
 * Told each time a unit of a transformation's work is done (a document's page): a job records
 * it as its progress; a synchronous request, which nobody watches, ignores it.
 */
export const WorkProgress = Context.Reference<{ readonly unitDone: Effect.Effect<void> }>("WorkProgress", { defaultValue: () => ({ unitDone: Effect.void }) });
