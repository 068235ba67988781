import os from "node:os";
import path from "node:path";
import { defineConfig } from "vitest/config";

export default defineConfig({
  test: {
    include: ["test/**/*.test.ts"],
    // Accuracy sweeps (many pages through the service and a native baseline) run behind
    // `npm run test:accuracy`, like the benchmarks, so that the default suite stays within CI's time.
    exclude: ["test/accuracy/**", "**/node_modules/**"],
    // Integration and e2e suites start real servers and engines: on 2 cores, running them
    // file-parallel only adds contention and flaky timings.
    fileParallelism: false,
    testTimeout: 60_000,
    reporters: ["default", "./test/support/summary-reporter.ts"],
    hookTimeout: 120_000,
    // The suite starts the service and itsctl about 60 times: Node's compile cache spares each start
    // compiling the same modules again (≈13 % of a start's CPU, 4.3 → 3.75 s measured).
    env: { NODE_COMPILE_CACHE: path.join(os.tmpdir(), "image-transformation-service-compile-cache") },
  },
});
