import { randomUUID } from "node:crypto";
import pg from "pg";

/** The PostgreSQL every machine of this project runs; POSTGRES_URL points elsewhere. */
export const postgresUrl = process.env["POSTGRES_URL"] ?? "postgres://postgres@127.0.0.1:5432/postgres";

/** A schema name no other run uses, so suites and benches never see each other's events. */
export const freshSchemaName = (prefix: string): string => `${prefix}_${randomUUID().replaceAll("-", "").slice(0, 12)}`;

export const dropSchemas = async (schemas: Iterable<string>): Promise<void> => {
  const admin = new pg.Client({ connectionString: postgresUrl });
  await admin.connect();
  try {
    for (const schema of schemas) await admin.query(`DROP SCHEMA IF EXISTS ${schema} CASCADE`);
  } finally {
    await admin.end();
  }
};
