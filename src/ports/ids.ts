import { Context } from "effect";

/** Identifiers and secrets: randomness is a dependency like any other. */
export interface IdsShape {
  /** A unique id for requests, results and events (UUID). */
  readonly uuid: () => string;
  readonly accountId: () => string;
  /** 16 characters of [a-z0-9]: the public part of an API key. */
  readonly keyId: () => string;
  /** At least 256 bits of randomness, base64url. */
  readonly keySecret: () => string;
}

export class Ids extends Context.Service<Ids, IdsShape>()("Ids") {}
