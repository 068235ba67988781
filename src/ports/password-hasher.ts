import { Context, type Effect } from "effect";

/** A memory-hard hash of holder passwords; both sides run off the event loop. */
export interface PasswordHasherShape {
  readonly hash: (password: string) => Effect.Effect<string>;
  /**
   * False for a wrong password or a hash this hasher cannot read. With no hash (no such holder) it
   * does the same work and answers false, so the time taken does not tell which emails have one.
   */
  readonly verify: (password: string, storedHash: string | null) => Effect.Effect<boolean>;
}

export class PasswordHasher extends Context.Service<PasswordHasher, PasswordHasherShape>()("PasswordHasher") {}
