import { Effect } from "effect";
import { describe, expect, it } from "vitest";
import { argon2PasswordHasher } from "../../src/adapters/security/argon2-password-hasher.ts";
import { PasswordHasher, type PasswordHasherShape } from "../../src/ports/password-hasher.ts";

/** The password hasher port's contract, run against every adapter. */
const targets = [{ name: "argon2id (@node-rs/argon2)", layer: argon2PasswordHasher, prefix: "$argon2id$" }];

for (const target of targets) {
  describe(`PasswordHasher contract: ${target.name}`, () => {
    const run = <A>(body: (hasher: PasswordHasherShape) => Effect.Effect<A>) =>
      Effect.runPromise(
        Effect.gen(function* () {
          return yield* body(yield* PasswordHasher);
        }).pipe(Effect.provide(target.layer)),
      );

    it("verifies the password it hashed and nothing else; hashes are salted and never hold the password", () =>
      run((hasher) =>
        Effect.gen(function* () {
          const password = "correct horse battery staple";
          const [first, second] = [yield* hasher.hash(password), yield* hasher.hash(password)];
          expect(first.startsWith(target.prefix)).toBe(true);
          expect(first).not.toBe(second);
          expect(first).not.toContain(password);
          expect(yield* hasher.verify(password, first)).toBe(true);
          expect(yield* hasher.verify(password, second)).toBe(true);
          expect(yield* hasher.verify("correct horse battery stapl", first)).toBe(false);
          expect(yield* hasher.verify(password, null)).toBe(false);
          expect(yield* hasher.verify(password, "not a hash")).toBe(false);
        }),
      ));
  });
}
