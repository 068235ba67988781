import { Effect, type Layer } from "effect";
import { describe, expect, it } from "vitest";
import { PasswordHasher, type PasswordHasherShape } from "../../../src/ports/password-hasher.ts";

/** The password hasher port's contract; `prefix` is how the adapter's hashes begin (their algorithm). */
export const passwordHasherContract = (target: { readonly name: string; readonly layer: Layer.Layer<PasswordHasher>; readonly prefix: string }) =>
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
