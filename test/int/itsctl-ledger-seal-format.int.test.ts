import { copyFileSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { DatabaseSync } from "node:sqlite";
import { Effect, ManagedRuntime } from "effect";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { loadServerSecrets } from "../../src/adapters/security/server-secret.ts";
import { coreLayer } from "../../src/composition.ts";
import { loadConfig } from "../../src/config.ts";
import { EventStore, NO_STREAM } from "../../src/ports/event-store.ts";
import { itsctl } from "../support/service-process.ts";
import { dataDir, removeStoreCopies, sqlite, type StoreKind } from "../support/store-copies.ts";

/**
 * What a seal looks like in the store: however many streams changed, no seal event is larger than
 * a bound (the heads go in pieces), and the audit holds every stream to it; seals written by the
 * code before pieces (format v1) are still read and built on.
 */
afterAll(removeStoreCopies);

const STREAMS = 10_000;
/** The stated bound on one seal event as stored (data and metadata): far below NATS's 1 MiB. */
const SEAL_EVENT_BOUND = 64 * 1024;
const streamName = (i: number) => `quota-acc_bulk${String(i).padStart(8, "0")}-2026-11`;

describe(`a seal of ${STREAMS.toLocaleString("en")} changed streams`, () => {
  let store: Awaited<ReturnType<StoreKind["fresh"]>>;

  beforeAll(async () => {
    store = await sqlite.fresh();
    const config = loadConfig(store.env, 1);
    const runtime = ManagedRuntime.make(coreLayer(config, loadServerSecrets(config)));
    const at = new Date().toISOString();
    try {
      // Two events a stream, through the real (chained) store: a charge reserved and committed.
      await runtime.runPromise(
        Effect.gen(function* () {
          const events = yield* EventStore;
          for (let i = 0; i < STREAMS; i++) {
            const requestId = `r${i}`;
            yield* events.appendToStream(
              streamName(i),
              [
                { type: "QuotaReserved", data: { requestId, at }, metadata: { actor: { kind: "service", task: "bulk" } } },
                { type: "QuotaCommitted", data: { requestId, at }, metadata: { actor: { kind: "service", task: "bulk" } } },
              ],
              { expectedRevision: NO_STREAM },
            );
          }
        }),
      );
    } finally {
      await runtime.dispose();
    }
    const sealed = await itsctl(store.env, ["ledger", "seal"]);
    expect(sealed.stderr).toBe("");
    expect(sealed.stdout).toMatch(new RegExp(`^Sealed ${STREAMS} stream heads `));
  }, 120_000);

  it(`keeps every seal event under ${SEAL_EVENT_BOUND / 1024} KiB, and the audit verifies it and names a cut among the streams`, async () => {
    const copy = await store.copy();
    const sizes = (await copy.sql([
      "SELECT type, length(CAST(data AS BLOB)) + length(CAST(metadata AS BLOB)) AS size FROM events WHERE stream_name = 'ledger-seals'",
    ])) as ReadonlyArray<{ type: string; size: number }>;
    expect(sizes.filter((event) => event.type === "LedgerSealHeads").length).toBeGreaterThan(10);
    expect(sizes.at(-1)!.type).toBe("LedgerSealed");
    expect(Math.max(...sizes.map((event) => Number(event.size)))).toBeLessThan(SEAL_EVENT_BOUND);

    const verified = await itsctl(copy.env, ["audit", "--verify-only"]);
    expect(verified.code).toBe(0);
    expect(verified.stdout).toContain(`${STREAMS} stream heads`);
    expect(verified.stdout).toContain("chains and seal: OK");

    const sealFile = join(copy.env.DATA_DIR!, "exported-seal.json");
    expect((await itsctl(copy.env, ["ledger", "export", "--out", sealFile])).code).toBe(0);
    expect((JSON.parse(readFileSync(sealFile, "utf8")) as { heads: Array<unknown> }).heads).toHaveLength(STREAMS);
    const cut = streamName(6_789);
    await copy.sql([`DELETE FROM events WHERE stream_name = '${cut}' AND stream_revision = 1`]);
    for (const audited of [await itsctl(copy.env, ["audit", "--verify-only"]), await itsctl(copy.env, ["audit", "--verify-only", "--seal", sealFile])]) {
      expect(audited.code).toBe(1);
      expect(audited.stdout).toContain(`DAMAGE in stream ${cut} at revision 1: tail cut (sealed at revision 1, the stream ends at 0)`);
      expect(audited.stdout.match(/DAMAGE in/g)).toHaveLength(1);
    }
  });
});

/**
 * Made by the code of commit c3492bc (before seals came in pieces and recorded their interval),
 * SERVER_SECRET below: an account with two keys, seal 0, the second key revoked, seal 1; and the
 * export of seal 1. The seals are v1: every changed head inline, signed without an interval.
 */
describe("a store sealed by the code before pieces (v1 seals)", () => {
  const FIXTURES = join(import.meta.dirname, "../fixtures/ledger");
  const SERVER_SECRET = "7365616c732d666f726d61742d76312d666978747572652d6f6e6c792d746573";
  const ACCOUNT = "acc_5l5ir9lu0rgnz5uf";
  const EXPORTED = join(FIXTURES, "store-with-v1-seals.seal.json");
  const v1Store = () => {
    const dir = dataDir();
    copyFileSync(join(FIXTURES, "store-with-v1-seals.sqlite"), join(dir, "events.sqlite"));
    return { DATA_DIR: dir, SERVER_SECRET };
  };
  const sql = (env: { DATA_DIR: string }, statement: string) => {
    const db = new DatabaseSync(join(env.DATA_DIR, "events.sqlite"));
    db.exec(statement);
    db.close();
  };

  it("holds the store to them, finds a cut tail with them, and seals on top of them", async () => {
    // Its seals recorded no interval: the auditor's counts, here manual seals only.
    const manual = { ...v1Store(), LEDGER_SEAL_INTERVAL_SECONDS: "0" };
    const verified = await itsctl(manual, ["audit", "--verify-only"]);
    expect(verified.stdout).toContain("held to the latest seal (revision 1, 2026-11-25T18:09:44.038Z): 1 stream heads");
    expect(verified.code).toBe(0);
    expect((await itsctl(manual, ["audit", "--verify-only", "--seal", EXPORTED])).code).toBe(0);
    // With seals due every second, they are long overdue.
    const stale = await itsctl({ ...v1Store(), LEDGER_SEAL_INTERVAL_SECONDS: "1" }, ["audit", "--verify-only"]);
    expect(stale.code).toBe(1);
    expect(stale.stdout).toContain("DAMAGE in stream ledger-seals at revision 2: seal missing (the newest seal (revision 1, 2026-11-25T18:09:44.038Z)");

    const cut = { ...v1Store(), LEDGER_SEAL_INTERVAL_SECONDS: "0" };
    sql(cut, "DELETE FROM events WHERE type = 'ApiKeyRevoked'");
    const audited = await itsctl(cut, ["audit", "--verify-only"]);
    expect(audited.code).toBe(1);
    expect(audited.stdout).toContain(`DAMAGE in stream account-${ACCOUNT} at revision 3: tail cut (sealed at revision 3, the stream ends at 2)`);

    // A v2 seal folds the v1 seals' heads under its root; the old export still holds.
    const resealed = v1Store();
    expect((await itsctl(resealed, ["key", "create", "--account", ACCOUNT, "--name", "after"])).code).toBe(0);
    const sealed = JSON.parse((await itsctl(resealed, ["ledger", "seal", "--json"])).stdout) as { format: string; heads: Array<{ revision: number }> };
    expect(sealed).toMatchObject({ format: "its-ledger-seal/v2", sealRevision: 2, streams: 1, heads: [{ revision: 4 }] });
    const after = await itsctl(resealed, ["audit", "--account", ACCOUNT]);
    expect(after.stderr).toBe("");
    expect(after.code).toBe(0);
    expect((await itsctl(resealed, ["audit", "--verify-only", "--seal", EXPORTED])).code).toBe(0);
  });
});
