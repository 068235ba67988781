import { randomBytes } from "node:crypto";
import { hash, verify } from "@node-rs/argon2";
import { Effect, Layer } from "effect";
import { PasswordHasher } from "../../ports/password-hasher.ts";

/**
 * argon2id (the package's default algorithm) with OWASP's minimum cost: 19 MiB, 2 passes, 1 lane.
 * Both hashing and checking run in libuv's thread pool, so a sign-in never stalls the event loop.
 */
const COST = { memoryCost: 19_456, timeCost: 2, parallelism: 1 } as const;

export const argon2PasswordHasher = Layer.effect(PasswordHasher)(
  Effect.gen(function* () {
    // What a check against no hash costs: the same work, against a hash of nothing anyone knows.
    const decoy = yield* Effect.promise(() => hash(randomBytes(32).toString("base64url"), COST));
    return {
      hash: (password) => Effect.promise(() => hash(password, COST)),
      verify: (password, storedHash) =>
        Effect.promise(async () => {
          const matches = await verify(storedHash ?? decoy, password).catch(() => false);
          return storedHash !== null && matches;
        }),
    };
  }),
);
