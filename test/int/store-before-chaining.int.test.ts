import { randomBytes } from "node:crypto";
import { copyFileSync, rmSync } from "node:fs";
import { join } from "node:path";
import { DatabaseSync } from "node:sqlite";
import { afterAll, describe, expect, it } from "vitest";
import { itsctl, makeDataDir } from "../support/service-process.ts";

/**
 * A store written before events were chained, versioned or attributed keeps working. The fixture
 * was made by the code of commit 3380ad7 (main before this change): an account, a key, three
 * requests on a free ledger of limit 2, the third refused (a QuotaReservationRefused of schema
 * version 1, without `reserved`), 11 events and no chain.
 */
const FIXTURE = join(import.meta.dirname, "../fixtures/ledger/store-before-chaining.sqlite");
const ACCOUNT = "acc_legacy0000000001";
const dirs: Array<string> = [];
afterAll(() => {
  for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
});

const legacyStore = () => {
  const dir = makeDataDir();
  dirs.push(dir);
  copyFileSync(FIXTURE, join(dir, "events.sqlite"));
  return { DATA_DIR: dir, SERVER_SECRET: randomBytes(32).toString("hex") };
};

interface Audit {
  ok: boolean;
  history: Array<{ type: string; what: string; actor: { kind: string } | null }>;
  ledger: { events: number; unchained: { events: number; chainedFrom: number | null }; damage: Array<{ streamName: string; revision: number; kind: string }> };
}

describe("a store made before chaining", () => {
  it("verifies as unchained, then chains from where new events start, and decodes its old events", async () => {
    const env = legacyStore();
    const before = await itsctl(env, ["audit", "--verify-only"]);
    expect(before.stdout).toContain("11 event(s) unchained before position (none chained yet)");
    // Written days ago and never sealed: the audit fails until it is (docs/audit-and-receipts.md: seal after the upgrade).
    expect(before.stdout).toContain("DAMAGE in stream ledger-seals at revision 0: seal missing (the store holds events since 2026-10-14T10:00:00.000Z");
    expect(before.code).toBe(1);

    // New events on an old stream and a new one: chaining starts at the store's next position.
    expect((await itsctl(env, ["key", "create", "--account", ACCOUNT, "--name", "new"])).code).toBe(0);
    expect((await itsctl(env, ["ledger", "seal"])).code).toBe(0);
    expect((await itsctl(env, ["projections", "rebuild"])).code).toBe(0);
    const after = await itsctl(env, ["audit", "--account", ACCOUNT, "--json"]);
    expect(after.stderr).toBe("");
    expect(after.code).toBe(0);
    const report = JSON.parse(after.stdout) as Audit;
    expect(report.ok).toBe(true);
    expect(report.ledger.unchained).toEqual({ events: 11, chainedFrom: 12 });
    expect(report.history.map((entry) => [entry.type, entry.actor?.kind ?? null])).toEqual([
      ["AccountOpened", null],
      ["ApiKeyIssued", null],
      ["QuotaReserved", null],
      ["QuotaCommitted", null],
      ["QuotaReserved", null],
      ["QuotaCommitted", null],
      ["QuotaReservationRefused", null],
      ["ApiKeyIssued", "operator"],
    ]);
    // The version-1 refusal, read through its upcaster.
    expect(report.history.find((entry) => entry.type === "QuotaReservationRefused")?.what).toBe("generate: refused, quota used up (2/2)");

    // The chained part is held to its chain: the new key's event, edited, is found.
    const db = new DatabaseSync(join(env.DATA_DIR, "events.sqlite"));
    db.exec(`UPDATE events SET data = replace(data, '"new"', '"renamed"') WHERE global_position = 12`);
    db.close();
    const tampered = await itsctl(env, ["audit", "--verify-only"]);
    expect(tampered.code).toBe(1);
    expect(tampered.stdout).toContain(`DAMAGE in stream account-${ACCOUNT} at revision 2: edited`);
  });
});
