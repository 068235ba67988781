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
  },
});
