/**
 * Two projects, so that tests that need no database do not start one. A test file runs in
 * "database", beside the PostgreSQL that `test/support/globalSetup.ts` starts, when
 * - it lives where only such tests live: `test/e2e/`, `test/bench/`, `test/adapters/postgres/`,
 *   or is named `*.postgres.test.ts` (a contract suite's PostgreSQL run); or
 * - it imports a test support of the database (`test/support/TestDatabase.ts`, `TestServer.ts`,
 *   `AppProcess.ts`) or an adapter in `adapters/postgres/`.
 * Every other file runs in "no-database", with no setup. A file that needs the database but lands
 * there fails at once with a message that points here (`TestDatabase.ts`), rather than hanging.
 */
import { globSync, readFileSync } from "node:fs"
import { join } from "node:path"
import { configDefaults, defineConfig } from "vitest/config"

// The tests start hundreds of Node processes (the CLI, the app, benchmarks); V8's compiled code
// kept on disk takes about a third off each one's start. Set here, so workers and what they spawn
// inherit it.
process.env.NODE_COMPILE_CACHE ??= join(import.meta.dirname, "node_modules", ".cache", "node-compile-cache")

const testFiles = "test/**/*.test.ts"

const databaseFolders = /^test\/(e2e|bench|adapters\/postgres)\/|\.postgres\.test\.ts$/
const databaseImport =
  /["'][^"'\n]*(\/support\/(TestDatabase|TestServer|AppProcess)|\/adapters\/postgres\/)[^"'\n]*["']/

const needsDatabase = (file: string) =>
  databaseFolders.test(file) || databaseImport.test(readFileSync(new URL(file, import.meta.url), "utf8"))

const databaseFiles = globSync(testFiles, { cwd: import.meta.dirname, exclude: configDefaults.exclude })
  .filter(needsDatabase)
  .sort()

export default defineConfig({
  test: {
    reporters: ["default", "./test/support/SummaryReporter.ts"],
    testTimeout: 60_000,
    hookTimeout: 120_000,
    projects: [
      {
        test: {
          name: "no-database",
          include: [testFiles],
          exclude: [...configDefaults.exclude, ...databaseFiles]
        }
      },
      {
        test: {
          name: "database",
          include: databaseFiles,
          // Concurrent tests run three at a time: the benchmarks' smoke runs (`test/bench/`).
          maxConcurrency: 3,
          globalSetup: ["test/support/globalSetup.ts"]
        }
      }
    ]
  }
})
