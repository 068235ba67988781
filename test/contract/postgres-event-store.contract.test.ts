import { Effect } from "effect";
import { Client, Pool } from "pg";
import { makePostgresEventStore, postgresEventStoreLayer } from "../../src/adapters/event-store/postgres-event-store.ts";
import { dropSchemas, freshSchemaName, postgresUrl } from "../support/postgres.ts";
import { eventStoreContract, eventStoreFaultsContract, instanceOf } from "./support/event-store-contract.ts";
import { skipUnlessServerAnswers } from "./support/server-answers.ts";

/** A throwaway schema per test, dropped afterwards. */
const storage = Effect.acquireRelease(
  Effect.sync(() => freshSchemaName("its_test")),
  (schema) => Effect.promise(() => dropSchemas([schema])),
).pipe(
  Effect.map((schema) => ({
    open: instanceOf(postgresEventStoreLayer({ connectionString: postgresUrl, schema, poolSize: 4, pollInterval: "10 millis" })),
    damageData: (streamName: string, revision: number) =>
      Effect.promise(async () => {
        const admin = new Client({ connectionString: postgresUrl });
        await admin.connect();
        try {
          await admin.query(`UPDATE ${schema}.events SET data = '[1]'::json WHERE stream_name = $1 AND stream_revision = $2`, [streamName, revision]);
        } finally {
          await admin.end();
        }
      }),
  })),
);

const target = {
  name: "postgres",
  storage,
  skip: await skipUnlessServerAnswers("PostgreSQL", postgresUrl, 5432),
  unreachable: postgresEventStoreLayer({ connectionString: "postgres://postgres@127.0.0.1:1/postgres" }),
  // A pool whose every connection fails, as after the server went away: the store is made without the start-up check.
  lost: Effect.acquireRelease(
    Effect.sync(() => {
      const pool = new Pool({ connectionString: postgresUrl.replace(/\/[^/]*$/, "/its_no_such_database"), connectionTimeoutMillis: 2_000 });
      pool.on("error", () => undefined);
      return pool;
    }),
    (pool) => Effect.promise(() => pool.end()),
  ).pipe(Effect.map(makePostgresEventStore)),
};

eventStoreContract(target);
eventStoreFaultsContract(target);
