import { execFile } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { promisify } from "node:util";
import sharp from "sharp";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { leafHash, verifyConsistency, verifyInclusion } from "../../verifier/merkle-proofs.mjs";
import { canonicalize, receiptSigned } from "../../verifier/receipts.mjs";
import { openCheckpoint, parseVerifierKey } from "../../verifier/signed-note.mjs";
import { provisionAccount, type ServiceProcess, startService } from "../support/service-process.ts";

/**
 * Bills a customer checks without trusting us, over HTTPS on the real service: every charged
 * response carries a signed receipt; receipts, checkpoints and proofs are checked with the
 * customer's own verifier (verifier/, node:crypto only), and verify-bill.mjs exits 0 on each
 * account's statement, with the checkpoints the customer saved along the way.
 */
const run = promisify(execFile);
const VERIFY_BILL = path.resolve(import.meta.dirname, "../../verifier/verify-bill.mjs");
const REQUESTS = 1000;
const ACCOUNTS = 3;

let service: ServiceProcess;
beforeAll(async () => {
  // The per-key rate is the plan's 10 a minute: this test sends a thousand requests on three keys.
  service = await startService({ env: { RATE_LIMIT_BURST: "5000", RATE_LIMIT_PER_MINUTE: "100000" } });
});
afterAll(async () => service?.stop());

const text = (reply: { body: Buffer }) => reply.body.toString("utf8");
const b64 = (value: string) => new Uint8Array(Buffer.from(value, "base64"));

describe("signed receipts in a transparency log", () => {
  it(`${REQUESTS} charged requests across ${ACCOUNTS} accounts: receipts verify, proofs reach the checkpoints, checkpoints are consistent, statements add up, verify-bill exits 0`, async () => {
    const accounts = await Promise.all(Array.from({ length: ACCOUNTS }, () => provisionAccount(service.env, "enterprise")));
    const image = (
      await sharp({ create: { width: 32, height: 32, channels: 3, background: "#3a6" } })
        .png()
        .toBuffer()
    ).toString("base64");
    const key = parseVerifierKey(text(await service.client.request("GET", "/api/ledger/key")));
    const saved: Array<string> = [];
    const receipts: Array<{
      account: number;
      receipt: { body: Record<string, unknown> & { leafIndex: number; requestId: string }; keyId: string; signature: string };
    }> = [];

    const started = performance.now();
    for (let sent = 0; sent < REQUESTS; sent += 20) {
      const replies = await Promise.all(
        Array.from({ length: Math.min(20, REQUESTS - sent) }, async (_, i) => {
          const account = (sent + i) % ACCOUNTS;
          const reply = await service.client.request("POST", "/api/generate", {
            key: accounts[account]!.keys[0]!.key,
            body: { image, template: "grayscale", templateType: "filter" },
          });
          expect(reply.status, JSON.stringify(reply.json)).toBe(200);
          return { account, receipt: reply.json.data.receipt };
        }),
      );
      receipts.push(...replies);
      if (sent % 200 === 0) saved.push(text(await service.client.request("GET", "/api/ledger/checkpoint")));
    }
    const seconds = (performance.now() - started) / 1000;
    saved.push(text(await service.client.request("GET", "/api/ledger/checkpoint")));

    // Each receipt is the log key's signature over a charge of this request, one unit, this account.
    for (const { account, receipt } of receipts) {
      expect(receiptSigned(receipt, key)).toBe(true);
      expect(receipt.body).toMatchObject({ v: 1, kind: "charge", units: 1, operation: "generate", account: accounts[account]!.accountId });
    }
    expect(new Set(receipts.map((r) => r.receipt.body.leafIndex)).size).toBe(REQUESTS);

    // Consecutive checkpoints the customer saved are consistent; each is a signed note of this log.
    const heads = saved.map((note) => openCheckpoint(note, key));
    for (let i = 1; i < heads.length; i += 1) {
      const [older, newer] = [heads[i - 1]!, heads[i]!];
      if (older.size === 0 || older.size === newer.size) continue;
      const proof = await service.client.request("GET", `/api/ledger/proof/consistency?from=${older.size}&to=${newer.size}`);
      expect(proof.status, JSON.stringify(proof.json)).toBe(200);
      expect(verifyConsistency({ size1: older.size, size2: newer.size, root1: older.root, root2: newer.root, proof: proof.json.data.hashes.map(b64) })).toBe(
        true,
      );
    }

    // A sample of receipts, each proved against the newest checkpoint by its own account's key.
    const head = heads.at(-1)!;
    for (const { account, receipt } of receipts.filter((_, i) => i % 25 === 0)) {
      const proof = await service.client.request("GET", `/api/ledger/proof/inclusion?requestId=${receipt.body.requestId}&treeSize=${head.size}`, {
        key: accounts[account]!.keys[0]!.key,
      });
      expect(proof.status, JSON.stringify(proof.json)).toBe(200);
      const leaf = leafHash(Buffer.from(canonicalize(receipt.body)));
      expect(verifyInclusion({ index: receipt.body.leafIndex, size: head.size, leaf, proof: proof.json.data.hashes.map(b64), root: head.root })).toBe(true);
      const stranger = await service.client.request("GET", `/api/receipts/${receipt.body.requestId}`, {
        key: accounts[(account + 1) % ACCOUNTS]!.keys[0]!.key,
      });
      expect(stranger.status).toBe(404);
    }

    // Each account's statement adds up to its profile's `used`, and the customer's verifier accepts it.
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), "its-bill-"));
    fs.writeFileSync(path.join(dir, "key.txt"), `${text(await service.client.request("GET", "/api/ledger/key"))}\n`);
    const savedFiles = saved.slice(0, -1).map((note, i) => {
      const file = path.join(dir, `checkpoint-${i}.txt`);
      fs.writeFileSync(file, note);
      return file;
    });
    const from = [...new Set(heads.slice(0, -1).map((h) => h.size))].join(",");
    for (const account of accounts) {
      const period = new Date().toISOString().slice(0, 7);
      const statement = await service.client.request("GET", `/api/user/statement?period=${period}&from=${from}`, { key: account.keys[0]!.key });
      expect(statement.status, JSON.stringify(statement.json)).toBe(200);
      const profile = await service.client.request("GET", "/api/user/profile", { key: account.keys[0]!.key });
      expect(statement.json.data.totals.units).toBe(profile.json.data.quota.used);
      const file = path.join(dir, `${account.accountId}.json`);
      fs.writeFileSync(file, JSON.stringify(statement.json));
      const verified = await run(process.execPath, [
        VERIFY_BILL,
        "--key",
        path.join(dir, "key.txt"),
        "--statement",
        file,
        ...savedFiles.flatMap((f) => ["--checkpoint", f]),
      ]);
      expect(verified.stdout).toMatch(/^OK /);
    }
    console.log(`receipts: ${REQUESTS} charged /generate in ${seconds.toFixed(1)} s; ${saved.length} checkpoints saved, the last of ${head.size} leaves`);
  }, 600_000);

  it("names a failed request's ledger id in its error and X-Request-Id, and GET /api/receipts/{requestId} gives its release", async () => {
    const { keys } = await provisionAccount(service.env, "free");
    const jpeg = await sharp({ create: { width: 64, height: 48, channels: 3, background: "#336699" } })
      .jpeg()
      .toBuffer();
    // Reserved, then unreadable past its header: released, not charged.
    const body = { image: jpeg.subarray(0, jpeg.length >> 1).toString("base64"), template: "instagram-square", templateType: "social" };
    const failed = await service.client.request("POST", "/api/generate", { key: keys[0]!.key, body, headers: { "X-Request-Id": "client-chosen-id-1" } });
    expect(failed.status).toBe(422);
    const requestId = failed.json.error.requestId as string;
    expect(failed.headers["x-request-id"]).toBe(requestId);
    expect(requestId).not.toBe("client-chosen-id-1");
    const found = await service.client.request("GET", `/api/receipts/${requestId}`, { key: keys[0]!.key });
    expect(found.status, JSON.stringify(found.json)).toBe(200);
    expect(found.json.data.receipts.map((receipt: { body: { kind: string; requestId: string } }) => receipt.body)).toEqual([
      expect.objectContaining({ kind: "release", requestId, units: 1 }),
    ]);
    const key = parseVerifierKey(text(await service.client.request("GET", "/api/ledger/key")));
    expect(receiptSigned(found.json.data.receipts[0], key)).toBe(true);
  });
});
