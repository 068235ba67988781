import { inMemoryResultStoreLayer } from "../../src/adapters/results/in-memory-result-store.ts";
import { resultStoreContract } from "./support/result-store-contract.ts";

resultStoreContract("in memory", async () => inMemoryResultStoreLayer());
