import type { DatabaseSync } from "node:sqlite";
import { Effect, Option } from "effect";
import { accountEventCodec } from "../../application/event-sourcing/events/account-events.ts";
import { displayPrefix } from "../../domain/api-key.ts";
import type { PlanId } from "../../domain/plan.ts";
import type { RecordedEvent } from "../../ports/event-store.ts";
import type { KeyProjectionShape, ProjectedAccount, ProjectedKey } from "../../ports/projections.ts";
import { inReadTransaction, makeSqliteProjection, type SqliteProjectionContext, type SqliteProjectionDefinition, unavailable } from "./sqlite-projection.ts";

/** Accounts and their keys, revoked ones kept with the time of revocation. */
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
        const { accountId, keyId, name, secretHash, at } = event.data;
        issued.run(keyId, accountId, name, secretHash, at);
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
  tables: ["accounts", "api_keys"],
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
});

export const makeSqliteKeyProjection = (context: SqliteProjectionContext): KeyProjectionShape => {
  const projection = makeSqliteProjection(context, keyProjectionDefinition);
  const { db } = context;
  const activeKey = db.prepare("SELECT * FROM api_keys WHERE key_id = ? AND revoked_at IS NULL");
  const account = db.prepare("SELECT * FROM accounts WHERE account_id = ?");
  const keysOfAccount = db.prepare("SELECT * FROM api_keys WHERE account_id = ? ORDER BY created_at, key_id");
  const positionOf = db.prepare("SELECT position FROM checkpoints WHERE projection = ?");
  const withEmail = db.prepare("SELECT * FROM accounts WHERE lower(email) = lower(?) ORDER BY opened_at, account_id LIMIT 10");
  return {
    ...projection,
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
