#!/usr/bin/env node
// @ts-check
/**
 * An auditor's replayer, written from docs/events.md alone and sharing nothing with src/: it reads
 * an SQLite event store with plain SQL and prints, per account, the plan history, every key's life
 * and the quota totals (in all, and per period, operation and key) as JSON.
 *
 *   node test/support/independent-replayer.mjs DATA_DIR/events.sqlite
 *
 * The suite holds its numbers to `itsctl audit`'s (test/e2e/independent-replay.e2e.test.ts).
 */
import { DatabaseSync } from "node:sqlite";

const file = process.argv[2];
if (!file) {
  process.stderr.write("usage: independent-replayer.mjs EVENTS.sqlite\n");
  process.exit(2);
}

/**
 * "bring older data to the current version with the upcasts listed under each event, in order":
 * `upcasts[type][n]` turns version n into n + 1.
 * @type {Record<string, Record<number, (data: any) => any>>}
 */
const upcasts = {
  QuotaReserved: { 1: (data) => ({ ...data, units: 1 }) },
  QuotaReservationRefused: { 1: (data) => ({ ...data, reserved: null }), 2: (data) => ({ ...data, units: 1 }) },
  ApiKeyIssued: { 1: (data) => ({ ...data, restrictions: { scopes: null, expiresAt: null, allowedIps: null, monthlyLimit: null } }) },
};
/** @type {Record<string, number>} */
const currentVersion = { QuotaReserved: 2, QuotaReservationRefused: 3, ApiKeyIssued: 2 };

/** @param {string} type @param {any} data @param {any} metadata */
const upcast = (type, data, metadata) => {
  let version = typeof metadata.schemaVersion === "number" ? metadata.schemaVersion : 1;
  while (version < (currentVersion[type] ?? 1)) data = upcasts[type]?.[version++]?.(data) ?? data;
  return data;
};

/**
 * @typedef {{ reserved: number, committed: number, released: number, refusedRequests: number, refusedUnits: number }} Counts
 * @typedef {{ plans: Array<{ plan: string, at: string }>, keys: Map<string, { keyId: string, name: string, createdAt: string, revokedAt: string | null }>, totals: Counts, lines: Map<string, Counts & { period: string, operation: string, keyId: string }> }} Account
 */
/** @type {Map<string, Account>} */
const accounts = new Map();
const zero = () => ({ reserved: 0, committed: 0, released: 0, refusedRequests: 0, refusedUnits: 0 });
/** @param {string} accountId */
const accountOf = (accountId) => {
  let account = accounts.get(accountId);
  if (account === undefined) {
    account = { plans: [], keys: new Map(), totals: zero(), lines: new Map() };
    accounts.set(accountId, account);
  }
  return account;
};
/**
 * Adds to the account's totals and to its line of period, operation and key.
 * @param {string} accountId @param {{ period: string, operation: string, keyId: string }} what @param {Partial<Counts>} counts
 */
const count = (accountId, what, counts) => {
  const account = accountOf(accountId);
  const name = `${what.period} ${what.operation} ${what.keyId}`;
  const line = account.lines.get(name) ?? { period: what.period, operation: what.operation, keyId: what.keyId, ...zero() };
  for (const [field, n] of /** @type {Array<[keyof Counts, number]>} */ (Object.entries(counts))) {
    account.totals[field] += n;
    line[field] += n;
  }
  account.lines.set(name, line);
};

/** Open reservations per quota stream: "take them from the reservation with that requestId in the same stream". */
/** @type {Map<string, Map<string, { accountId: string, keyId: string, operation: string, period: string, units: number }>>} */
const open = new Map();

const db = new DatabaseSync(file, { readOnly: true });
const rows = db.prepare("SELECT stream_name, type, data, metadata FROM events ORDER BY global_position").all();
for (const row of rows) {
  const stream = String(row.stream_name);
  const type = String(row.type);
  const data = upcast(type, JSON.parse(String(row.data)), JSON.parse(String(row.metadata)));
  if (stream.startsWith("account-")) {
    const account = accountOf(data.accountId);
    if (type === "AccountOpened") account.plans.push({ plan: data.plan, at: data.at });
    if (type === "AccountPlanChanged") account.plans.push({ plan: data.to, at: data.at });
    if (type === "ApiKeyIssued" && !account.keys.has(data.keyId))
      account.keys.set(data.keyId, { keyId: data.keyId, name: data.name, createdAt: data.at, revokedAt: null });
    if (type === "ApiKeyRolled" && !account.keys.has(data.newKeyId)) {
      account.keys.set(data.newKeyId, { keyId: data.newKeyId, name: data.name, createdAt: data.at, revokedAt: null });
    }
    const revoked = type === "ApiKeyRevoked" ? account.keys.get(data.keyId) : undefined;
    if (revoked !== undefined && revoked.revokedAt === null) revoked.revokedAt = data.at;
  } else if (stream.startsWith("quota-")) {
    const reservations = open.get(stream) ?? new Map();
    open.set(stream, reservations);
    if (type === "QuotaReserved") {
      const { accountId, keyId, operation, period, units, requestId } = data;
      reservations.set(requestId, { accountId, keyId, operation, period, units });
      count(accountId, { period, operation, keyId }, { reserved: units });
    } else if (type === "QuotaReservationRefused") {
      count(data.accountId, data, { refusedRequests: 1, refusedUnits: data.units });
    } else if (type === "QuotaCommitted" || type === "QuotaReleased") {
      // A commit or release names only its request; with no open reservation it moves nothing.
      const reservation = reservations.get(data.requestId);
      if (reservation === undefined) continue;
      reservations.delete(data.requestId);
      count(reservation.accountId, reservation, type === "QuotaCommitted" ? { committed: reservation.units } : { released: reservation.units });
    }
  }
}
db.close();

const report = Object.fromEntries(
  [...accounts].map(([accountId, account]) => [
    accountId,
    {
      plans: account.plans,
      keys: [...account.keys.values()],
      totals: account.totals,
      lines: [...account.lines.values()].sort((a, b) => (`${a.period} ${a.operation} ${a.keyId}` < `${b.period} ${b.operation} ${b.keyId}` ? -1 : 1)),
    },
  ]),
);
process.stdout.write(`${JSON.stringify(report, null, 2)}\n`);
