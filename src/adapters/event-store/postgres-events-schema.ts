import type { Pool } from "pg";
import { escapeIdentifier, escapeLiteral } from "pg";
import { createInSchema } from "../postgres/create-in-schema.ts";

/** The events table of a schema, quoted for SQL. */
export const eventsTable = (schema: string): string => `${escapeIdentifier(schema)}.events`;

/** The function readers of the global order call (see below), quoted for SQL. */
export const settledReadFunction = (schema: string): string => `${escapeIdentifier(schema)}.read_settled_events`;

/** How long a read of the global order waits for appends still in flight before reporting the store unavailable. */
export const settledReadWaitMs = 5_000;

/**
 * Reads the global order only as far as it is settled. Appends draw positions from the identity
 * sequence when they insert, but become visible when they commit, and appends to different streams
 * do not wait for each other: position 10 may commit after 11. A reader that returned 11 while 10
 * was in flight would continue after 11 and never see 10. So the function takes the highest position
 * committed now (`head`), then waits until every transaction that held the table open for writing at
 * that moment has ended: any position below `head` was drawn before `head` was, by a transaction
 * that held this lock from before its draw until its commit (or rollback). Only then does it read,
 * with a fresh snapshot, up to `head`. It waits for this table's appends only, not for unrelated
 * transactions elsewhere on the server (which a snapshot's xmin would also wait for).
 */
const settledReadFunctionDdl = (schema: string) => {
  const table = eventsTable(schema);
  const tableName = escapeLiteral(table);
  const writers = `FROM pg_locks
      WHERE locktype = 'relation' AND relation = ${tableName}::regclass AND mode = 'RowExclusiveLock' AND pid <> pg_backend_pid()
        AND database = (SELECT oid FROM pg_database WHERE datname = current_database())`;
  return `CREATE OR REPLACE FUNCTION ${settledReadFunction(schema)}(after bigint, max_events integer, wait_ms integer)
    RETURNS SETOF ${table} LANGUAGE plpgsql VOLATILE AS $settled$
    DECLARE
      head bigint;
      appending text[];
      give_up timestamptz := clock_timestamp() + wait_ms * interval '1 millisecond';
    BEGIN
      SELECT max(global_position) INTO head FROM ${table};
      IF head IS NULL OR head <= after THEN RETURN; END IF;
      SELECT array_agg(virtualtransaction) INTO appending ${writers};
      WHILE appending IS NOT NULL AND EXISTS (SELECT 1 ${writers} AND virtualtransaction = ANY (appending)) LOOP
        IF clock_timestamp() > give_up THEN
          RAISE EXCEPTION 'appends to % still in flight after % ms', ${tableName}, wait_ms USING ERRCODE = 'lock_not_available';
        END IF;
        PERFORM pg_sleep(0.0005);
      END LOOP;
      RETURN QUERY SELECT * FROM ${table} WHERE global_position > after AND global_position <= head ORDER BY global_position LIMIT max_events;
    END
    $settled$`;
};

/**
 * The events table and the settled read, made if missing; `json` rather than `jsonb` keeps the
 * stored text exactly as written (jsonb rejects "\u0000"). Returns whether a table written by an
 * earlier version (whose appends took turns on a table-wide lock) was upgraded in place: the table
 * and its positions stay as they are; what changes is how appends and readers order themselves.
 */
export const ensureEventsSchema = async (pool: Pool, schema: string): Promise<{ readonly upgraded: boolean }> => {
  const table = eventsTable(schema);
  const { rows } = await pool.query<{ table_exists: boolean; reader_exists: boolean }>(
    `SELECT to_regclass($1) IS NOT NULL AS table_exists, to_regprocedure($2) IS NOT NULL AS reader_exists`,
    [table, `${settledReadFunction(schema)}(bigint, integer, integer)`],
  );
  await createInSchema(pool, schema, () => [
    `CREATE TABLE IF NOT EXISTS ${table} (
        global_position bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
        event_id text NOT NULL,
        stream_name text NOT NULL,
        stream_revision bigint NOT NULL,
        type text NOT NULL,
        data json NOT NULL,
        metadata json NOT NULL,
        recorded_at timestamptz NOT NULL DEFAULT clock_timestamp(),
        UNIQUE (stream_name, stream_revision)
      )`,
    settledReadFunctionDdl(schema),
  ]);
  return { upgraded: rows[0]!.table_exists && !rows[0]!.reader_exists };
};
