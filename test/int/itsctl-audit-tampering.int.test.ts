import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { itsctl, provisionAccount } from "../support/service-process.ts";
import { chargeRequests, postgres, removeStoreCopies, sqlite, type StoreKind } from "../support/store-copies.ts";

/**
 * The auditor's scenario, scripted: a store written by the real code and sealed, then changed by
 * hand with SQL as someone with database access would, the projections rebuilt from it, and
 * `itsctl audit` run. Every kind of damage must be named with its stream and revision; an
 * untouched store passes. The same on SQLite and on PostgreSQL.
 */
afterAll(removeStoreCopies);

/** One change per damage, each on its own ledger: r1 reserved (0), committed (1), r2 (2, 3), r3 reserved (4), released (5). */
const tampering = (kind: string, ledger: string) => {
  const where = (revision: string) => `WHERE stream_name = '${ledger}' AND stream_revision ${revision}`;
  switch (kind) {
    case "edited":
      // The scenario: a charge turned into a refund.
      return {
        revision: 1,
        sql: [`UPDATE events SET type = 'QuotaReleased', data = '{"requestId":"r1","reason":"refund","at":"2026-11-01T00:00:00.000Z"}' ${where("= 1")}`],
      };
    case "deleted":
      return { revision: 3, sql: [`DELETE FROM events ${where("= 3")}`] };
    case "inserted":
      return {
        revision: 2,
        sql: [
          `UPDATE events SET stream_revision = stream_revision + 1000 ${where(">= 2")}`,
          `UPDATE events SET stream_revision = stream_revision - 999 ${where(">= 1000")}`,
          `INSERT INTO events (event_id, stream_name, stream_revision, type, data, metadata, recorded_at)
           VALUES ('00000000-0000-4000-8000-000000000000', '${ledger}', 2, 'QuotaReleased', '{"requestId":"r1","reason":"refund","at":"2026-11-01T00:00:00.000Z"}', '{}', '2026-11-01T00:00:00.000Z')`,
        ],
      };
    case "re-ordered":
      return {
        revision: 1,
        sql: [
          `UPDATE events SET stream_revision = 1001 ${where("= 1")}`,
          `UPDATE events SET stream_revision = 1 ${where("= 2")}`,
          `UPDATE events SET stream_revision = 2 ${where("= 1001")}`,
        ],
      };
    default:
      return { revision: 4, sql: [`DELETE FROM events ${where(">= 4")}`] };
  }
};

const KINDS = ["edited", "deleted", "inserted", "re-ordered", "tail cut"] as const;

describe.each([sqlite, postgres])("itsctl audit on a $name store", (kind) => {
  let store: Awaited<ReturnType<StoreKind["fresh"]>>;
  let accountId: string;
  let ledgers: ReadonlyArray<string>;

  beforeAll(async () => {
    store = await kind.fresh();
    const account = await provisionAccount(store.env, "pro", 1);
    accountId = account.accountId;
    ledgers = await chargeRequests(
      store.env,
      accountId,
      account.keys[0]!.id,
      KINDS.map((_, i) => new Date(Date.UTC(2026, 4 + i, 15))),
    );
    const sealed = await itsctl(store.env, ["ledger", "seal", "--json"]);
    expect(sealed.stderr).toBe("");
    expect(JSON.parse(sealed.stdout)).toMatchObject({
      streams: 1 + KINDS.length,
      heads: expect.arrayContaining([expect.objectContaining({ stream: ledgers[0], revision: 5 })]),
    });
  }, 60_000);

  /** As the auditor would: rebuild the projections from the store, then audit. */
  const rebuildAndAudit = async (env: Record<string, string>) => {
    expect((await itsctl(env, ["projections", "rebuild"])).code).toBe(0);
    return itsctl(env, ["audit", "--account", accountId]);
  };

  it("passes the untouched store, naming who acted", async () => {
    const copy = await store.copy();
    const audited = await rebuildAndAudit(copy.env);
    expect(audited.stderr).toBe("");
    expect(audited.code).toBe(0);
    expect(audited.stdout).toContain("chains and seal: OK");
    expect(audited.stdout).toMatch(/ApiKeyIssued .* by operator [^@\s]+@[^@\s]+ \(itsctl\)/);
    // Every event says who acted: the operator, the key, the service (store identity, seals).
    const [unattributed] = await copy.sql([`SELECT count(*) AS n FROM events WHERE CAST(metadata AS TEXT) NOT LIKE '%"actor":{"kind":%'`]);
    expect(Number(unattributed!["n"])).toBe(0);
    // The walk alone, with its speed.
    const verified = await itsctl(copy.env, ["audit", "--verify-only"]);
    expect(verified.code).toBe(0);
    expect(verified.stdout).toMatch(new RegExp(`^Ledger: \\d+ events in ${2 + KINDS.length} streams verified in [\\d.]+ s \\(\\d+ events/s\\)`));
  });

  it("names the stream, revision and kind of each damage: edited, deleted, inserted, re-ordered, tail cut", async () => {
    const copy = await store.copy();
    const changes = KINDS.map((damage, i) => ({ damage, ledger: ledgers[i]!, ...tampering(damage, ledgers[i]!) }));
    await copy.sql(changes.flatMap((change) => change.sql));
    // Found as the store stands, and again once the projections were rebuilt from the changed events.
    for (const audited of [await itsctl(copy.env, ["audit", "--account", accountId]), await rebuildAndAudit(copy.env)]) {
      expect(audited.code).toBe(1);
      expect(audited.stderr).toMatch(/^itsctl: the event store is damaged: /);
      for (const change of changes) {
        expect(audited.stdout).toContain(`DAMAGE in stream ${change.ledger} at revision ${change.revision}: ${change.damage} (`);
        expect(audited.stderr).toContain(`stream ${change.ledger} revision ${change.revision}: ${change.damage}`);
      }
      expect(audited.stdout.match(/DAMAGE in/g)).toHaveLength(KINDS.length);
    }
  });

  it("names a row that no longer reads as an event (data or metadata not a JSON object), walks on past it, and rebuilds no projection over it", async () => {
    const copy = await store.copy();
    const [first, second] = [ledgers[0]!, ledgers[1]!];
    await copy.sql([
      `UPDATE events SET data = ${kind.notAnObject.sql} WHERE stream_name = '${first}' AND stream_revision = 2`,
      `UPDATE events SET metadata = 'null' WHERE stream_name = '${second}' AND stream_revision = 3`,
    ]);
    const audited = await itsctl(copy.env, ["audit", "--account", accountId]);
    expect(audited.code).toBe(1);
    expect(audited.stdout).toContain(`DAMAGE in stream ${first} at revision 2: edited (the row does not read as an event: ${kind.notAnObject.problem})`);
    expect(audited.stdout).toContain(`DAMAGE in stream ${second} at revision 3: edited (the row does not read as an event: its metadata is not a JSON object)`);
    expect(audited.stdout.match(/DAMAGE in/g)).toHaveLength(2);
    const rebuilt = await itsctl(copy.env, ["projections", "rebuild"]);
    expect(rebuilt.code).toBe(1);
    expect(rebuilt.stderr).toMatch(
      new RegExp(`^itsctl: event (2 of stream ${first}|3 of stream ${second}) \\(.*\\) does not decode: its (data|metadata) is not`),
    );
  });

  it("finds a cut tail with an exported seal even when the store's own seals were deleted too, and refuses a forged export", async () => {
    const copy = await store.copy();
    const sealFile = join(copy.env.DATA_DIR!, "exported-seal.json");
    expect((await itsctl(copy.env, ["ledger", "export", "--out", sealFile])).code).toBe(0);
    await copy.sql([...tampering("tail cut", ledgers[0]!).sql, "DELETE FROM events WHERE stream_name = 'ledger-seals'"]);
    // The store alone no longer holds what would show the cut, only that its seals are missing...
    const alone = await itsctl(copy.env, ["audit", "--verify-only"]);
    expect(alone.code).toBe(1);
    expect(alone.stdout).toContain("DAMAGE in stream ledger-seals at revision 0: seal missing");
    expect(alone.stdout).not.toContain("tail cut");
    // ...the seal kept apart shows the cut.
    const held = await itsctl(copy.env, ["audit", "--verify-only", "--seal", sealFile]);
    expect(held.code).toBe(1);
    expect(held.stdout).toContain(`DAMAGE in stream ${ledgers[0]} at revision 4: tail cut`);

    const forged = JSON.parse(readFileSync(sealFile, "utf8")) as { heads: Array<{ stream: string; revision: number }> };
    const forgedFile = join(copy.env.DATA_DIR!, "forged-seal.json");
    writeFileSync(forgedFile, JSON.stringify({ ...forged, heads: forged.heads.map((head) => (head.stream === ledgers[0] ? { ...head, revision: 3 } : head)) }));
    const refused = await itsctl(copy.env, ["audit", "--verify-only", "--seal", forgedFile]);
    expect(refused.code).toBe(1);
    expect(refused.stdout).toContain("the exported seal fails: its heads do not give its root");
  });
});
