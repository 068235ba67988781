import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { DatabaseSync } from "node:sqlite";
import sharp from "sharp";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { verifyConsistency } from "../../verifier/merkle-proofs.mjs";
import { openCheckpoint, parseVerifierKey } from "../../verifier/signed-note.mjs";
import { itsctl, provisionAccount, type ServiceProcess, startService } from "../support/service-process.ts";

/**
 * Someone with database access edits a copy of the store that the real service wrote; the receipts
 * log is then held against it (itsctl ledger log verify names where they differ) and rebuilt from
 * it, as an operator covering the edit would. The customer, holding a checkpoint saved before,
 * finds out: the rebuilt log is not consistent with it. Each edit of the issue, on SQLite.
 */
const CHARGES = 12;
let original: ServiceProcess;
let saved: string;
let verifierKey: ReturnType<typeof parseVerifierKey>;
const copies: Array<string> = [];
let key: string;

beforeAll(async () => {
  original = await startService();
  const account = await provisionAccount(original.env, "enterprise");
  key = account.keys[0]!.key;
  expect((await original.client.request("GET", "/api/user/profile", { key })).json.data.receipts).toEqual({ status: "published" });
  const image = (
    await sharp({ create: { width: 24, height: 24, channels: 3, background: "#48c" } })
      .png()
      .toBuffer()
  ).toString("base64");
  for (let i = 0; i < CHARGES; i += 1) {
    const reply = await original.client.request("POST", "/api/generate", {
      key: account.keys[0]!.key,
      body: { image, template: "grayscale", templateType: "filter" },
    });
    expect(reply.status).toBe(200);
    expect(reply.json.data.receipt.body.leafIndex).toBe(i);
  }
  expect((await itsctl(original.env, ["ledger", "seal"])).code).toBe(0);
  saved = (await original.client.request("GET", "/api/ledger/checkpoint")).body.toString("utf8");
  verifierKey = parseVerifierKey((await original.client.request("GET", "/api/ledger/key")).body.toString("utf8"));
  await original.stop();
}, 120_000);
afterAll(() => {
  for (const dir of copies) fs.rmSync(dir, { recursive: true, force: true });
});

const charge = (n: number) => `(SELECT global_position FROM events WHERE type = 'QuotaCommitted' ORDER BY global_position LIMIT 1 OFFSET ${n})`;
const EDITS: Record<string, ReadonlyArray<string>> = {
  "one changed byte in a charge": [`UPDATE events SET data = replace(data, '"at":"20', '"at":"19') WHERE global_position = ${charge(2)}`],
  "a deleted charge": [`DELETE FROM events WHERE global_position = ${charge(4)}`],
  "a cut tail together with every seal": [`DELETE FROM events WHERE global_position > ${charge(7)}`, `DELETE FROM events WHERE type = 'LedgerSealed'`],
  "a re-ordered pair": [
    `UPDATE events SET data = (SELECT data FROM events WHERE global_position = ${charge(6)}), event_id = 'swap' WHERE global_position = ${charge(5)}`,
    `UPDATE events SET data = (SELECT data FROM events WHERE event_id = 'swap') WHERE global_position = ${charge(6)}`,
  ],
};

/** A copy of the original store with `sql` run on it. */
const editedCopy = (sql: ReadonlyArray<string>): string => {
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), "its-tampered-"));
  copies.push(dataDir);
  fs.cpSync(original.dataDir, dataDir, { recursive: true });
  const db = new DatabaseSync(path.join(dataDir, "events.sqlite"));
  for (const statement of sql) db.exec(statement);
  db.close();
  return dataDir;
};

describe("the receipts log against an edited store", () => {
  it("withheld by a service started on the store, which says so in every profile", async () => {
    const service = await startService({ dataDir: editedCopy(EDITS["a deleted charge"]!) });
    try {
      // The check runs as the service starts: the profile says so once it has.
      const status = async () => (await service.client.request("GET", "/api/user/profile", { key })).json.data.receipts.status as string;
      await expect.poll(status, { timeout: 10_000 }).toBe("withheld");
      expect((await service.client.request("GET", "/api/ledger/checkpoint")).status).toBe(503);
    } finally {
      await service.stop();
    }
  });

  it.each(Object.entries(EDITS))(
    "%s: itsctl names the first differing leaf, and the rebuilt log is not consistent with the saved checkpoint",
    async (_, sql) => {
      const dataDir = editedCopy(sql);
      const env = { ...original.env, DATA_DIR: dataDir };

      const verified = await itsctl(env, ["ledger", "log", "verify"]);
      expect(verified.code).toBe(1);
      expect(verified.stderr).toMatch(/the receipts log differs from the event store from leaf \d+ on/);
      expect((await itsctl(env, ["ledger", "log", "rebuild"])).code).toBe(0);
      expect((await itsctl(env, ["ledger", "log", "verify"])).code).toBe(0);

      // The customer asks the service now running on the edited store for a proof from the checkpoint saved before.
      const service = await startService({ dataDir });
      try {
        const before = openCheckpoint(saved, verifierKey);
        const after = openCheckpoint((await service.client.request("GET", "/api/ledger/checkpoint")).body.toString("utf8"), verifierKey);
        expect(Buffer.from(after.root).equals(Buffer.from(before.root))).toBe(false);
        const proof = await service.client.request("GET", `/api/ledger/proof/consistency?from=${before.size}&to=${after.size}`);
        const hashes = proof.status === 200 ? (proof.json.data.hashes as Array<string>).map((h) => Buffer.from(h, "base64")) : [];
        expect(verifyConsistency({ size1: before.size, size2: after.size, root1: before.root, root2: after.root, proof: hashes })).toBe(false);
      } finally {
        await service.stop();
      }
    },
    120_000,
  );
});
