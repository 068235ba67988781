import type { DatabaseSync } from "node:sqlite";
import { Effect, Option } from "effect";
import { accountEventCodec } from "../../application/event-sourcing/events/account-events.ts";
import { displayPrefix } from "../../domain/api-key.ts";
import type { KeyRestrictions } from "../../domain/key-restrictions.ts";
import type { PlanId } from "../../domain/plan.ts";
import type { RecordedEvent } from "../../ports/event-store.ts";
import type { KeyProjectionShape, ProjectedAccount, ProjectedKey } from "../../ports/projections.ts";
import { inReadTransaction, makeSqliteProjection, type SqliteProjectionContext, type SqliteProjectionDefinition, unavailable } from "./sqlite-projection.ts";

/**
 * Accounts and their keys, revoked ones kept with the time of revocation. A key's restrictions sit
 * in a table of their own (a key made before they existed has no row: unrestricted), so a database
 * made by an older version needs no change of its tables. When each key was last used is noted
 * outside the events (key_last_used), so a rebuild does not empty it.
 */
const schema = `
  CREATE TABLE IF NOT EXISTS accounts (
    account_id TEXT PRIMARY KEY,
    email TEXT NOT NULL,
    name TEXT NOT NULL,
    plan TEXT NOT NULL,
    opened_at TEXT NOT NULL
  ) STRICT;
  CREATE TABLE IF NOT EXISTS api_keys (
    key_id TEXT PRIMARY KEY,
    account_id TEXT NOT NULL,
    name TEXT NOT NULL,
    secret_hash TEXT NOT NULL,
    created_at TEXT NOT NULL,
    revoked_at TEXT
  ) STRICT;
  CREATE TABLE IF NOT EXISTS api_key_restrictions (
    key_id TEXT PRIMARY KEY,
    scopes TEXT,
    expires_at TEXT,
    allowed_ips TEXT,
    monthly_limit INTEGER
  ) STRICT;
  CREATE TABLE IF NOT EXISTS key_last_used (key_id TEXT PRIMARY KEY, last_used_at TEXT NOT NULL) STRICT;
  CREATE INDEX IF NOT EXISTS api_keys_by_account ON api_keys (account_id);
  CREATE INDEX IF NOT EXISTS accounts_by_email ON accounts (lower(email));
`;

const writer = (db: DatabaseSync) => {
  const opened = db.prepare(
    `INSERT INTO accounts (account_id, email, name, plan, opened_at) VALUES (?, ?, ?, ?, ?)
     ON CONFLICT (account_id) DO UPDATE SET email = excluded.email, name = excluded.name, plan = excluded.plan, opened_at = excluded.opened_at`,
  );
  const planChanged = db.prepare("UPDATE accounts SET plan = ? WHERE account_id = ?");
  const issued = db.prepare("INSERT INTO api_keys (key_id, account_id, name, secret_hash, created_at) VALUES (?, ?, ?, ?, ?) ON CONFLICT (key_id) DO NOTHING");
  const revoked = db.prepare("UPDATE api_keys SET revoked_at = ? WHERE key_id = ? AND account_id = ? AND revoked_at IS NULL");
  const restricted = db.prepare(
    `INSERT INTO api_key_restrictions (key_id, scopes, expires_at, allowed_ips, monthly_limit) VALUES (?, ?, ?, ?, ?)
     ON CONFLICT (key_id) DO UPDATE SET scopes = excluded.scopes, expires_at = excluded.expires_at, allowed_ips = excluded.allowed_ips, monthly_limit = excluded.monthly_limit`,
  );
  const restrict = (keyId: string, { scopes, expiresAt, allowedIps, monthlyLimit }: KeyRestrictions) =>
    restricted.run(keyId, scopes && JSON.stringify(scopes), expiresAt, allowedIps && JSON.stringify(allowedIps), monthlyLimit);
  const expires = db.prepare(
    `INSERT INTO api_key_restrictions (key_id, expires_at) VALUES (?, ?) ON CONFLICT (key_id) DO UPDATE SET expires_at = excluded.expires_at`,
  );
  return (recorded: RecordedEvent): void => {
    const event = accountEventCodec.decode(recorded);
    switch (event.type) {
      case "AccountOpened": {
        const { accountId, email, name, plan, at } = event.data;
        opened.run(accountId, email, name, plan, at);
        return;
      }
      case "AccountPlanChanged": {
        const { accountId, to } = event.data;
        planChanged.run(to, accountId);
        return;
      }
      case "ApiKeyIssued": {
        const { accountId, keyId, name, secretHash, restrictions, at } = event.data;
        issued.run(keyId, accountId, name, secretHash, at);
        restrict(keyId, restrictions);
        return;
      }
      case "ApiKeyRolled": {
        const { accountId, keyId, newKeyId, name, secretHash, restrictions, oldKeyExpiresAt, at } = event.data;
        issued.run(newKeyId, accountId, name, secretHash, at);
        restrict(newKeyId, restrictions);
        expires.run(keyId, oldKeyExpiresAt);
        return;
      }
      case "ApiKeyRevoked": {
        const { accountId, keyId, at } = event.data;
        revoked.run(at, keyId, accountId);
        return;
      }
    }
  };
};

export const keyProjectionDefinition: SqliteProjectionDefinition = {
  name: "keys",
  category: "account",
  schema,
  tables: ["accounts", "api_keys", "api_key_restrictions"],
  writer,
};

interface AccountRecord {
  readonly account_id: string;
  readonly email: string;
  readonly name: string;
  readonly plan: string;
  readonly opened_at: string;
}

interface KeyRecord {
  readonly key_id: string;
  readonly account_id: string;
  readonly name: string;
  readonly secret_hash: string;
  readonly created_at: string;
  readonly revoked_at: string | null;
  readonly scopes: string | null;
  readonly expires_at: string | null;
  readonly allowed_ips: string | null;
  readonly monthly_limit: number | null;
  readonly last_used_at: string | null;
}

const toAccount = (row: AccountRecord): ProjectedAccount => ({
  accountId: row.account_id,
  email: row.email,
  name: row.name,
  plan: row.plan as PlanId,
  openedAt: row.opened_at,
});

const toKey = (row: KeyRecord): ProjectedKey => ({
  keyId: row.key_id,
  accountId: row.account_id,
  name: row.name,
  prefix: displayPrefix(row.key_id),
  secretHash: row.secret_hash,
  createdAt: row.created_at,
  revokedAt: row.revoked_at,
  restrictions: {
    scopes: row.scopes === null ? null : (JSON.parse(row.scopes) as KeyRestrictions["scopes"]),
    expiresAt: row.expires_at,
    allowedIps: row.allowed_ips === null ? null : (JSON.parse(row.allowed_ips) as ReadonlyArray<string>),
    monthlyLimit: row.monthly_limit,
  },
  lastUsedAt: row.last_used_at,
});

const KEY_COLUMNS = `k.*, r.scopes, r.expires_at, r.allowed_ips, r.monthly_limit, u.last_used_at
  FROM api_keys k LEFT JOIN api_key_restrictions r ON r.key_id = k.key_id LEFT JOIN key_last_used u ON u.key_id = k.key_id`;

export const makeSqliteKeyProjection = (context: SqliteProjectionContext): KeyProjectionShape => {
  const projection = makeSqliteProjection(context, keyProjectionDefinition);
  const { db } = context;
  const activeKey = db.prepare(`SELECT ${KEY_COLUMNS} WHERE k.key_id = ? AND k.revoked_at IS NULL`);
  const account = db.prepare("SELECT * FROM accounts WHERE account_id = ?");
  const keysOfAccount = db.prepare(`SELECT ${KEY_COLUMNS} WHERE k.account_id = ? ORDER BY k.created_at, k.key_id`);
  const used = db.prepare(
    "INSERT INTO key_last_used (key_id, last_used_at) VALUES (?, ?) ON CONFLICT (key_id) DO UPDATE SET last_used_at = max(last_used_at, excluded.last_used_at)",
  );
  const positionOf = db.prepare("SELECT position FROM checkpoints WHERE projection = ?");
  const withEmail = db.prepare("SELECT * FROM accounts WHERE lower(email) = lower(?) ORDER BY opened_at, account_id LIMIT 10");
  return {
    ...projection,
    noteKeyUsed: (keyId, at) => Effect.try({ try: () => void used.run(keyId, at), catch: unavailable }),
    accountsWithEmail: (email) =>
      Effect.try({ try: () => (withEmail.all(email) as unknown as ReadonlyArray<AccountRecord>).map(toAccount), catch: unavailable }),
    findActiveKey: (keyId) =>
      Effect.try({
        try: () =>
          inReadTransaction(db, () => {
            const key = activeKey.get(keyId) as KeyRecord | undefined;
            const owner = key === undefined ? undefined : (account.get(key.account_id) as AccountRecord | undefined);
            return key === undefined || owner === undefined ? Option.none() : Option.some({ key: toKey(key), account: toAccount(owner) });
          }),
        catch: unavailable,
      }),
    keysOf: (accountId) =>
      Effect.try({
        try: () =>
          inReadTransaction(db, () => {
            const owner = account.get(accountId) as AccountRecord | undefined;
            const keys = (keysOfAccount.all(accountId) as unknown as ReadonlyArray<KeyRecord>).map(toKey);
            const position = (positionOf.get(projection.name) as { position: number } | undefined)?.position ?? 0;
            return { position, value: { account: Option.fromNullishOr(owner).pipe(Option.map(toAccount)), keys } };
          }),
        catch: unavailable,
      }),
  };
};
