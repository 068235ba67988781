import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll } from "vitest";
import { filesystemResultStoreLayer } from "../../src/adapters/results/filesystem-result-store.ts";
import { resultStoreContract } from "./support/result-store-contract.ts";

const directories: Array<string> = [];
afterAll(async () => {
  await Promise.all(directories.map((d) => rm(d, { recursive: true, force: true })));
});

resultStoreContract("filesystem", async () => {
  const directory = await mkdtemp(join(tmpdir(), "result-store-"));
  directories.push(directory);
  return filesystemResultStoreLayer({ directory: join(directory, "results") });
});
