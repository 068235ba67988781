import { Schema } from "effect";
import { canonicalJson } from "../event-checksum.ts";
import { makeEventCodec } from "./event-codec.ts";

/** The stream of ledger seals; its own events are chained like any other, but it is not under its seals' root. */
export const LEDGER_SEAL_STREAM = "ledger-seals";

const Head = Schema.Struct({ stream: Schema.String, revision: Schema.Number, mac: Schema.String });

/**
 * A seal: the Merkle root over every stream's head at `sealedAt`, signed with the seal key
 * (Ed25519, derived from SERVER_SECRET). Only the heads that changed since the previous seal are
 * recorded, and in bounded pieces, so that no event grows with the number of streams: the
 * `pieces` `LedgerSealHeads` events right before the `LedgerSealed` (same `sealedAt`), then its
 * own `heads`. Folding every seal's heads in order gives the full set under `root`.
 * `intervalSeconds` is the sealing schedule of the process that sealed (0: manual seals only),
 * which the audit holds the newest seal to; null for a seal written before it was recorded
 * (schema version 1: heads all inline, signed without the interval).
 */
export const SealEventSchema = Schema.Union([
  Schema.Struct({
    type: Schema.Literal("LedgerSealHeads"),
    data: Schema.Struct({ sealedAt: Schema.String, piece: Schema.Number, heads: Schema.Array(Head) }),
  }),
  Schema.Struct({
    type: Schema.Literal("LedgerSealed"),
    data: Schema.Struct({
      sealedAt: Schema.String,
      streams: Schema.Number,
      root: Schema.String,
      heads: Schema.Array(Head),
      pieces: Schema.Number,
      intervalSeconds: Schema.NullOr(Schema.Number),
      publicKey: Schema.String,
      signature: Schema.String,
    }),
  }),
]);
export type SealEvent = typeof SealEventSchema.Type;
export type LedgerSealed = Extract<SealEvent, { type: "LedgerSealed" }>["data"];

export const sealEventCodec = makeEventCodec(SealEventSchema, {
  versions: { LedgerSealed: 2 },
  // Version 1 held every changed head inline and did not record the interval.
  upcasters: { LedgerSealed: { 1: (data) => ({ ...data, pieces: 0, intervalSeconds: null }) } },
});

/** What a seal's signature covers: since version 2, its interval too, so that no one without the key can relax the audit's rule. */
export const sealStatement = (seal: {
  readonly sealedAt: string;
  readonly streams: number;
  readonly root: string;
  readonly intervalSeconds: number | null;
}): string =>
  seal.intervalSeconds === null
    ? canonicalJson(["its-ledger-seal/v1", seal.sealedAt, seal.streams, seal.root])
    : canonicalJson(["its-ledger-seal/v2", seal.sealedAt, seal.streams, seal.root, seal.intervalSeconds]);
