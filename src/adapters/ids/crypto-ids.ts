import { randomBytes, randomInt, randomUUID } from "node:crypto";
import { Layer } from "effect";
import { Ids } from "../../ports/ids.ts";

const ALPHABET = "abcdefghijklmnopqrstuvwxyz0123456789";

const randomToken = (length: number): string => Array.from({ length }, () => ALPHABET[randomInt(ALPHABET.length)]).join("");

export const cryptoIds = Layer.succeed(Ids)({
  uuid: () => randomUUID(),
  accountId: () => `acc_${randomToken(16)}`,
  keyId: () => randomToken(16),
  keySecret: () => randomBytes(32).toString("base64url"),
});
