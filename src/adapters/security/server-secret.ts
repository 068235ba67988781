import { createHmac, randomBytes } from "node:crypto";
import fs from "node:fs";
import path from "node:path";

/**
 * One master secret per deployment, from SERVER_SECRET or made once under DATA_DIR (0600).
 * Purpose-specific keys are derived from it, so a key hash and a URL signature never share a key.
 * Every instance and the CLI must see the same secret: configure SERVER_SECRET when DATA_DIR is not shared.
 */
export interface ServerSecrets {
  readonly apiKeyHashKey: Buffer;
  readonly resultUrlKey: Buffer;
  /** HMAC key of the events' hash chains: without it no one can re-chain an edited stream. */
  readonly eventChainKey: Buffer;
  /** Seed of the Ed25519 key that signs ledger seals. */
  readonly ledgerSealSeed: Buffer;
  /** Seed of the Ed25519 key of each generation (from 1) that signs receipts and the receipts log's checkpoints. */
  readonly receiptLogSeed: (generation: number) => Buffer;
  /** Seals the account console's one-time cookie (a new key's secret on its way to the page). */
  readonly consoleCookieKey: Buffer;
  /** Seals webhook endpoints' secrets (AES-256-GCM) in the event store. */
  readonly webhookSecretKey: Buffer;
}

const derive = (master: string, purpose: string): Buffer => createHmac("sha256", master).update(purpose).digest();

const readOrCreate = (dataDir: string): string => {
  const file = path.join(dataDir, "server-secret");
  fs.mkdirSync(dataDir, { recursive: true });
  try {
    fs.writeFileSync(file, randomBytes(32).toString("hex"), { flag: "wx", mode: 0o600 });
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== "EEXIST") throw error;
  }
  const secret = fs.readFileSync(file, "utf8").trim();
  if (secret.length < 32) throw new Error(`${file} is shorter than 32 characters; delete it to make a new one`);
  return secret;
};

export const loadServerSecrets = (options: { readonly serverSecret: string | undefined; readonly dataDir: string }): ServerSecrets => {
  const master = options.serverSecret ?? readOrCreate(options.dataDir);
  return {
    apiKeyHashKey: derive(master, "its/api-key-hash/v1"),
    resultUrlKey: derive(master, "its/result-url/v1"),
    eventChainKey: derive(master, "its/event-chain/v1"),
    ledgerSealSeed: derive(master, "its/ledger-seal/v1"),
    receiptLogSeed: (generation) => derive(master, generation === 1 ? "its/receipts-log/v1" : `its/receipts-log/v1/generation-${generation}`),
    consoleCookieKey: derive(master, "its/console-cookie/v1"),
    webhookSecretKey: derive(master, "its/webhook-secret/v1"),
  };
};
