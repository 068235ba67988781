import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Effect } from "effect";
import { sqliteProjectionsLayer } from "../../src/adapters/projections/sqlite-projections.ts";
import { instanceOf, projectionsContract } from "./support/projections-contract.ts";

projectionsContract({
  name: "sqlite",
  storage: Effect.acquireRelease(
    Effect.sync(() => mkdtempSync(join(tmpdir(), "its-projections-"))),
    (dir) => Effect.sync(() => rmSync(dir, { recursive: true, force: true })),
  ).pipe(Effect.map((dir) => ({ open: instanceOf(sqliteProjectionsLayer({ path: join(dir, "projections.sqlite") })) }))),
});
