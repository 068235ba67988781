import { randomBytes } from "node:crypto";
import { rmSync } from "node:fs";
import { join } from "node:path";
import { DatabaseSync } from "node:sqlite";
import { ManagedRuntime } from "effect";
import pg from "pg";
import { loadServerSecrets } from "../../src/adapters/security/server-secret.ts";
import { handleCommand } from "../../src/application/event-sourcing/command-handler.ts";
import { quotaLedgerStreamType } from "../../src/application/event-sourcing/events/quota-events.ts";
import { coreLayer } from "../../src/composition.ts";
import { loadConfig } from "../../src/config.ts";
import { billingPeriodOf } from "../../src/domain/billing-period.ts";
import { quotaStream } from "../../src/domain/quota-ledger.ts";
import { dropSchemas, freshSchemaName, postgresUrl } from "./postgres.ts";
import { makeDataDir } from "./service-process.ts";

/**
 * Event stores for the auditor's scenarios: written by the real code (SQLite or PostgreSQL), then
 * copied, so that each test changes its own copy by hand with SQL as someone with database access would.
 */
const SERVER_SECRET = randomBytes(32).toString("hex");
const dirs: Array<string> = [];
const schemas: Array<string> = [];
/** For each test file's afterAll: every store copy made, removed. */
export const removeStoreCopies = async () => {
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
  await dropSchemas(schemas.splice(0));
};

/** Where a copy of the store lives, how to change it with SQL, and the environment that points itsctl at it. */
export interface StoreCopy {
  readonly env: Record<string, string>;
  /** Runs the statements in order; the rows of the last one. */
  readonly sql: (statements: ReadonlyArray<string>) => Promise<ReadonlyArray<Record<string, unknown>>>;
}

export interface StoreKind {
  readonly name: string;
  /** SQL for an event's data that is not a JSON object, as the column allows: SQLite keeps any text, PostgreSQL's json only JSON. */
  readonly notAnObject: { readonly sql: string; readonly problem: string };
  readonly fresh: () => Promise<StoreCopy & { readonly copy: () => Promise<StoreCopy> }>;
}

/** A DATA_DIR that removeStoreCopies removes. */
export const dataDir = () => {
  const dir = makeDataDir();
  dirs.push(dir);
  return dir;
};

export const sqlite: StoreKind = {
  name: "SQLite",
  notAnObject: { sql: "'a charge'", problem: "its data is not JSON" },
  fresh: async () => {
    const dir = dataDir();
    const path = join(dir, "events.sqlite");
    const sqlOn = (file: string) => async (statements: ReadonlyArray<string>) => {
      const db = new DatabaseSync(file);
      try {
        for (const statement of statements.slice(0, -1)) db.exec(statement);
        return statements.length === 0 ? [] : db.prepare(statements.at(-1)!).all();
      } finally {
        db.close();
      }
    };
    return {
      env: { DATA_DIR: dir, SERVER_SECRET },
      sql: sqlOn(path),
      copy: async () => {
        const copyDir = dataDir();
        const copyPath = join(copyDir, "events.sqlite");
        await sqlOn(path)([`VACUUM INTO '${copyPath}'`]);
        return { env: { DATA_DIR: copyDir, SERVER_SECRET }, sql: sqlOn(copyPath) };
      },
    };
  },
};

export const postgres: StoreKind = {
  name: "PostgreSQL",
  notAnObject: { sql: `'["a charge"]'`, problem: "its data is not a JSON object" },
  fresh: async () => {
    const sqlIn = (schema: string) => async (statements: ReadonlyArray<string>) => {
      const client = new pg.Client({ connectionString: postgresUrl });
      await client.connect();
      try {
        await client.query(`SET search_path TO ${schema}`);
        let rows: ReadonlyArray<Record<string, unknown>> = [];
        for (const statement of statements) rows = (await client.query(statement)).rows;
        return rows;
      } finally {
        await client.end();
      }
    };
    const envOf = (schema: string) => ({ DATA_DIR: dataDir(), SERVER_SECRET, EVENT_STORE: "postgres", DATABASE_URL: `${postgresUrl}?schema=${schema}` });
    const base = freshSchemaName("its_tamper");
    schemas.push(base);
    return {
      env: envOf(base),
      sql: sqlIn(base),
      copy: async () => {
        const schema = freshSchemaName("its_tamper");
        schemas.push(schema);
        await sqlIn(base)([
          `CREATE SCHEMA ${schema}`,
          `CREATE TABLE ${schema}.events (LIKE ${base}.events INCLUDING ALL)`,
          `INSERT INTO ${schema}.events OVERRIDING SYSTEM VALUE SELECT * FROM ${base}.events`,
          `SELECT setval(pg_get_serial_sequence('${schema}.events', 'global_position'), (SELECT max(global_position) FROM ${schema}.events))`,
        ]);
        return { env: envOf(schema), sql: sqlIn(schema) };
      },
    };
  },
};

/** Three requests on one month's ledger, through the command handler the server uses: two charged, one released. */
export const chargeRequests = async (env: Record<string, string>, accountId: string, keyId: string, months: ReadonlyArray<Date>) => {
  const config = loadConfig(env, 1);
  const runtime = ManagedRuntime.make(coreLayer(config, loadServerSecrets(config)));
  const context = { actor: { kind: "api-key", keyId, accountId } as const };
  try {
    return await Promise.all(
      months.map(async (now) => {
        const period = billingPeriodOf(now).id;
        const ledger = quotaStream(accountId, period);
        for (const [requestId, outcome] of [
          ["r1", "commit"],
          ["r2", "commit"],
          ["r3", "release"],
        ] as const) {
          const reserve = {
            type: "ReserveQuota" as const,
            requestId,
            units: 1,
            accountId,
            keyId,
            operation: "generate" as const,
            period,
            limit: 500,
            expiresAt: new Date(now.getTime() + 60_000),
            now,
          };
          await runtime.runPromise(handleCommand(quotaLedgerStreamType, ledger, reserve, context));
          const finish =
            outcome === "commit" ? { type: "CommitQuota" as const, requestId, now } : { type: "ReleaseQuota" as const, requestId, reason: "InvalidImage", now };
          await runtime.runPromise(handleCommand(quotaLedgerStreamType, ledger, finish, context));
        }
        return ledger;
      }),
    );
  } finally {
    await runtime.dispose();
  }
};
