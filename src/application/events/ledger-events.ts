import { Schema } from "effect";
import { canonicalJson } from "../event-checksum.ts";
import { makeEventCodec } from "./event-codec.ts";

/** The stream of ledger seals; its own events are chained like any other, but it is not under its seals' root. */
export const LEDGER_SEAL_STREAM = "ledger-seals";

const Head = Schema.Struct({ stream: Schema.String, revision: Schema.Number, mac: Schema.String });

/**
 * A seal: the Merkle root over every stream's head at `sealedAt`, signed with the seal key
 * (Ed25519, derived from SERVER_SECRET). `heads` holds only the heads that changed since the
 * previous seal; folding every seal's `heads` in order gives the full set under `root`.
 */
export const LedgerEventSchema = Schema.Union([
  Schema.Struct({
    type: Schema.Literal("LedgerSealed"),
    data: Schema.Struct({
      sealedAt: Schema.String,
      streams: Schema.Number,
      root: Schema.String,
      heads: Schema.Array(Head),
      publicKey: Schema.String,
      signature: Schema.String,
    }),
  }),
]);
export type LedgerEvent = typeof LedgerEventSchema.Type;
export type LedgerSealed = Extract<LedgerEvent, { type: "LedgerSealed" }>["data"];

export const ledgerEventCodec = makeEventCodec(LedgerEventSchema);

/** What a seal's signature covers. */
export const sealStatement = (seal: { readonly sealedAt: string; readonly streams: number; readonly root: string }): string =>
  canonicalJson(["its-ledger-seal/v1", seal.sealedAt, seal.streams, seal.root]);
