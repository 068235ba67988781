import { argon2PasswordHasher } from "../../src/adapters/security/argon2-password-hasher.ts";
import { passwordHasherContract } from "./support/password-hasher-contract.ts";

passwordHasherContract({ name: "argon2id (@node-rs/argon2)", layer: argon2PasswordHasher, prefix: "$argon2id$" });
