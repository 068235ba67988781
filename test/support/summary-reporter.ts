import type { Reporter, TestModule } from "vitest/node";

/** How many of the slowest files the summary names. */
const slowestShown = 15;

/**
 * Ends the run with one plain line, "N passed, N failed, N skipped", that CI logs can be read by,
 * after the slowest files and their share of the run: CI has 30 minutes, and the suite's time is
 * spent by a few files (see docs/testing.md#ci-time).
 */
export default class SummaryReporter implements Reporter {
  onTestRunEnd(testModules: ReadonlyArray<TestModule>): void {
    const counts = { passed: 0, failed: 0, skipped: 0 };
    for (const module of testModules) {
      for (const test of module.children.allTests()) {
        const state = test.result().state;
        if (state === "passed") counts.passed++;
        else if (state === "failed") counts.failed++;
        else counts.skipped++;
      }
    }
    const timed = testModules.map((module) => ({ file: module.relativeModuleId, seconds: module.diagnostic().duration / 1000 }));
    const total = timed.reduce((sum, { seconds }) => sum + seconds, 0);
    const slowest = timed.sort((a, b) => b.seconds - a.seconds).slice(0, slowestShown);
    const lines = slowest.map(({ file, seconds }) => `  ${seconds.toFixed(1).padStart(6)} s  ${((100 * seconds) / total).toFixed(1).padStart(4)} %  ${file}`);
    process.stdout.write(`\nslowest files (of ${total.toFixed(0)} s in tests):\n${lines.join("\n")}\n`);
    process.stdout.write(`\n${counts.passed} passed, ${counts.failed} failed, ${counts.skipped} skipped\n`);
  }
}
