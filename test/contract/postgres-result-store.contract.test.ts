import { afterAll } from "vitest";
import { postgresResultStoreLayer } from "../../src/adapters/results/postgres-result-store.ts";
import { dropSchemas, freshSchemaName, postgresUrl } from "../support/postgres.ts";
import { resultStoreContract } from "./support/result-store-contract.ts";
import { skipUnlessServerAnswers } from "./support/server-answers.ts";

const schemas: Array<string> = [];
afterAll(() => dropSchemas(schemas));

resultStoreContract(
  "postgres",
  async () => {
    const schema = freshSchemaName("its_results");
    schemas.push(schema);
    return postgresResultStoreLayer({ connectionString: postgresUrl, schema });
  },
  await skipUnlessServerAnswers("PostgreSQL", postgresUrl, 5432),
);
