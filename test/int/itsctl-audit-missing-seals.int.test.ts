import { join } from "node:path";
import { Effect, type Layer, ManagedRuntime } from "effect";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { loadServerSecrets } from "../../src/adapters/security/server-secret.ts";
import { createKey, openAccount } from "../../src/application/access/accounts.ts";
import { makeStreamSealer } from "../../src/application/hash-chains/seal-stream-heads.ts";
import { coreLayer } from "../../src/composition.ts";
import { loadConfig } from "../../src/config.ts";
import { Clock } from "../../src/ports/clock.ts";
import { itsctl } from "../support/service-process.ts";
import { chargeRequests, postgres, removeStoreCopies, sqlite, type StoreKind } from "../support/store-copies.ts";

/**
 * Seals deleted by hand fail the audit, naming what is missing: a stream's tail cut together with
 * the newest seal (the revoked key comes back after a rebuild), every seal, a whole quota stream
 * with the seals. What shows is time: seals come every interval (recorded in each), so the newest
 * cannot be older than that plus the grace, and a store that has held events that long holds a
 * seal. The same on SQLite and on PostgreSQL.
 */
afterAll(removeStoreCopies);

type CoreServices = Layer.Success<ReturnType<typeof coreLayer>>;

/** A use case of the real code with its clock at `at`: the store as months of running wrote it. */
const runAt = async <A, E>(env: Record<string, string>, at: Date, useCase: Effect.Effect<A, E, CoreServices>) => {
  const config = loadConfig(env, 1);
  const runtime = ManagedRuntime.make(coreLayer(config, loadServerSecrets(config)));
  try {
    return await runtime.runPromise(useCase.pipe(Effect.provideService(Clock, { now: () => at })));
  } finally {
    await runtime.dispose();
  }
};
const operator = { kind: "operator", tool: "itsctl", user: "auditor", host: "test" } as const;

describe.each([sqlite, postgres])("itsctl audit of missing seals on a $name store", (kind) => {
  let store: Awaited<ReturnType<StoreKind["fresh"]>>;
  let accountId: string;
  let revoked: string;
  let ledger: string;
  const threeHoursAgo = new Date(Date.now() - 3 * 3600_000);

  beforeAll(async () => {
    store = await kind.fresh();
    // An account of June, with two keys and a June ledger.
    const { id, keys } = await runAt(
      store.env,
      new Date(Date.UTC(2026, 5, 1)),
      Effect.gen(function* () {
        const { id } = yield* openAccount({ email: `missing-seals-${Date.now()}@example.com`, name: "Missing seals", plan: "pro" }, operator);
        return { id, keys: [yield* createKey(id, "key-0", operator), yield* createKey(id, "key-1", operator)] };
      }),
    );
    accountId = id;
    revoked = keys[1]!.id;
    ledger = (await chargeRequests(store.env, accountId, keys[0]!.id, [new Date(Date.UTC(2026, 5, 15))]))[0]!;
    // The hourly seal of three hours ago (seal revision 0), the key revoked, the seal of now (revision 1).
    await runAt(store.env, threeHoursAgo, makeStreamSealer({ intervalSeconds: 3600 }).seal({ kind: "service", task: "periodic ledger seal" }));
    expect((await itsctl(store.env, ["key", "delete", "--account", accountId, "--key", revoked])).code).toBe(0);
    expect((await itsctl(store.env, ["ledger", "seal"])).code).toBe(0);
  }, 60_000);

  const revocation = "type = 'ApiKeyRevoked'";
  const newestSeal = "stream_name = 'ledger-seals' AND stream_revision = 1";

  it("passes while the seals are on schedule, and names a cut tail the newest seal covers", async () => {
    const untouched = await itsctl((await store.copy()).env, ["audit", "--account", accountId]);
    expect(untouched.stderr).toBe("");
    expect(untouched.code).toBe(0);

    const copy = await store.copy();
    await copy.sql([`DELETE FROM events WHERE ${revocation}`]);
    const cut = await itsctl(copy.env, ["audit", "--verify-only"]);
    expect(cut.code).toBe(1);
    expect(cut.stdout).toContain(`DAMAGE in stream account-${accountId} at revision 3: tail cut (sealed at revision 3, the stream ends at 2)`);
  });

  it("names the missing seal when a tail is cut together with the newest seal, though the rebuilt projections show the revoked key active", async () => {
    const copy = await store.copy();
    await copy.sql([`DELETE FROM events WHERE ${revocation}`, `DELETE FROM events WHERE ${newestSeal}`]);
    expect((await itsctl(copy.env, ["projections", "rebuild"])).code).toBe(0);
    const keys = JSON.parse((await itsctl(copy.env, ["key", "list", "--account", accountId, "--json"])).stdout) as Array<{ id: string }>;
    expect(keys.map((key) => key.id)).toContain(revoked);

    const audited = await itsctl(copy.env, ["audit", "--account", accountId]);
    expect(audited.code).toBe(1);
    expect(audited.stdout).toContain(
      `DAMAGE in stream ledger-seals at revision 1: seal missing (the newest seal (revision 0, ${threeHoursAgo.toISOString()}) is 3.0 h old and seals are due every 3600 s, 600 s of grace: newer seals are missing)`,
    );
    expect(audited.stdout).not.toContain("chains and seal: OK");
    expect(audited.stderr).toMatch(/^itsctl: the event store is damaged: stream ledger-seals revision 1: seal missing/);
  });

  it("names the missing seals when every seal is deleted", async () => {
    const copy = await store.copy();
    await copy.sql(["DELETE FROM events WHERE stream_name = 'ledger-seals'"]);
    const audited = await itsctl(copy.env, ["audit", "--account", accountId]);
    expect(audited.code).toBe(1);
    expect(audited.stdout).toMatch(
      /DAMAGE in stream ledger-seals at revision 0: seal missing \(the store holds events since 2026-06-01T00:00:00\.000Z \([\d.]+ h\) and no seal, and seals are due every 3600 s, 600 s of grace: every seal is missing\)/,
    );
    expect(audited.stderr).toContain("stream ledger-seals revision 0: seal missing");
  });

  it("names a whole quota stream gone; with the seals gone too, the missing seals, and an exported seal names the stream", async () => {
    const copy = await store.copy();
    const sealFile = join(copy.env.DATA_DIR!, "exported-seal.json");
    expect((await itsctl(copy.env, ["ledger", "export", "--out", sealFile])).code).toBe(0);
    await copy.sql([`DELETE FROM events WHERE stream_name = '${ledger}'`]);
    const gone = await itsctl(copy.env, ["audit", "--verify-only"]);
    expect(gone.code).toBe(1);
    expect(gone.stdout).toContain(`DAMAGE in stream ${ledger} at revision 0: gone (sealed at revision 5, the store holds no event of it)`);

    await copy.sql(["DELETE FROM events WHERE stream_name = 'ledger-seals'"]);
    const unsealed = await itsctl(copy.env, ["audit", "--verify-only"]);
    expect(unsealed.code).toBe(1);
    expect(unsealed.stdout).toContain("DAMAGE in stream ledger-seals at revision 0: seal missing (the store holds events since");
    const held = await itsctl(copy.env, ["audit", "--verify-only", "--seal", sealFile]);
    expect(held.code).toBe(1);
    expect(held.stdout).toContain(`DAMAGE in stream ${ledger} at revision 0: gone`);
    expect(held.stdout).toContain("DAMAGE in stream ledger-seals at revision 0: tail cut (the exported seal is revision 1; the store holds no seal)");
  });
});
