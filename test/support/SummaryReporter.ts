/**
 * Ends a run with one plain line, `tests: N passed, N failed, N skipped`, that log readers and CI
 * systems understand whatever test runner they know.
 */
import type { Reporter, TestModule } from "vitest/node"

export default class SummaryReporter implements Reporter {
  onTestRunEnd(testModules: ReadonlyArray<TestModule>) {
    const count = (state: "passed" | "failed" | "skipped") =>
      testModules.reduce((sum, module) => sum + [...module.children.allTests(state)].length, 0)
    process.stdout.write(`tests: ${count("passed")} passed, ${count("failed")} failed, ${count("skipped")} skipped\n`)
  }
}
