import { Schema } from "effect";
import { canonicalJson } from "../event-checksum.ts";
import { makeEventCodec } from "./event-codec.ts";
import { described } from "./event-fields.ts";

/** The stream of ledger seals; its own events are chained like any other, but it is not under its seals' root. */
export const LEDGER_SEAL_STREAM = "ledger-seals";

const Head = Schema.Struct({
  stream: described(Schema.String, "the stream's name"),
  revision: described(Schema.Number, "its last event's revision (from 0)"),
  mac: described(Schema.String, "that event's chain MAC, lowercase hex (docs/integrity.md)"),
});
const Heads = described(Schema.Array(Head), "stream heads that changed since the previous seal");
const SealedAt = described(Schema.String, "ISO 8601 UTC of the seal: the heads are the streams' as of then");
const BY_SEALING = "`itsctl ledger seal`, or the service's sealing schedule";

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
    data: Schema.Struct({ sealedAt: SealedAt, piece: described(Schema.Number, "the piece's number, from 0"), heads: Heads }),
  }).annotate({ description: "A bounded piece of a seal's changed heads, written right before its `LedgerSealed`.", writtenBy: BY_SEALING }),
  Schema.Struct({
    type: Schema.Literal("LedgerSealed"),
    data: Schema.Struct({
      sealedAt: SealedAt,
      streams: described(Schema.Number, "how many streams are under the root (every stream but `ledger-seals`)"),
      root: described(Schema.String, "the Merkle root over every stream's head, lowercase hex (docs/integrity.md)"),
      heads: described(Heads, "the last changed heads (after the pieces')"),
      pieces: described(Schema.Number, "how many `LedgerSealHeads` events precede this one with the same `sealedAt`"),
      intervalSeconds: described(
        Schema.NullOr(Schema.Number),
        "the sealing schedule of the process that sealed; 0: manual only; null: not recorded (version 1)",
      ),
      publicKey: described(Schema.String, "the raw 32-byte Ed25519 public key that verifies `signature`, base64"),
      signature: described(Schema.String, "Ed25519 over the seal statement (docs/integrity.md), base64"),
    }),
  }).annotate({ description: "A seal: the signed Merkle root over every stream's head.", writtenBy: BY_SEALING }),
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
