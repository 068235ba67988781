import type { Pool } from "pg";
import { escapeIdentifier } from "pg";

/**
 * Creates a schema and an adapter's tables in it, if missing, in one transaction. Concurrent starts
 * (servers, the CLI, the event store beside the result store) would race on CREATE … IF NOT EXISTS,
 * so every adapter takes the same transaction-scoped advisory lock first.
 */
export const createInSchema = async (pool: Pool, schema: string, statements: (qualifiedSchema: string) => ReadonlyArray<string>): Promise<void> => {
  const client = await pool.connect();
  try {
    await client.query("BEGIN");
    await client.query("SELECT pg_advisory_xact_lock(hashtextextended('its event store schema', 0))");
    const qualified = escapeIdentifier(schema);
    await client.query(`CREATE SCHEMA IF NOT EXISTS ${qualified}`);
    for (const statement of statements(qualified)) await client.query(statement);
    await client.query("COMMIT");
  } catch (error) {
    await client.query("ROLLBACK").catch(() => undefined);
    throw error;
  } finally {
    client.release();
  }
};
