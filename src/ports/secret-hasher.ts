import { Context } from "effect";

/** A keyed hash of API key secrets: what is stored, and a constant-time check against it. */
export interface SecretHasherShape {
  readonly hash: (secret: string) => string;
  readonly verify: (secret: string, storedHash: string) => boolean;
}

export class SecretHasher extends Context.Service<SecretHasher, SecretHasherShape>()("SecretHasher") {}
