import { defineConfig } from "vitest/config";

export default defineConfig({
  test: {
    include: ["test/**/*.test.ts"],
    // Integration and e2e suites start real servers and engines: on 2 cores, running them
    // file-parallel only adds contention and flaky timings.
    fileParallelism: false,
    testTimeout: 60_000,
    reporters: ["default", "./test/support/summary-reporter.ts"],
    hookTimeout: 120_000,
  },
});
