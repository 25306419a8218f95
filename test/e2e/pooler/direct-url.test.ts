/**
 * `DATABASE_DIRECT_URL` is checked at start like `DATABASE_URL`: a direct address that cannot be
 * reached stops the process with one line naming it, never its password; and a bad
 * `DATABASE_PREPARED_STATEMENTS` is refused before anything starts.
 */
import { assert, layer } from "@effect/vitest"
import { Effect } from "effect"
import { spawnApp } from "../../support/AppProcess.ts"
import { freePort } from "../../support/ports.ts"
import * as TestDatabase from "../../support/TestDatabase.ts"

const startFails = (env: Record<string, string>) =>
  Effect.promise(async () => {
    const app = spawnApp({ DEMO_SEED: "false", PORT: String(await freePort()), HOST: "127.0.0.1", ...env }, "serve")
    return { code: await app.exited, output: app.output() }
  })

layer(TestDatabase.layer, { timeout: 60_000, excludeTestServices: true })("the direct address", (it) => {
  it.effect("an unreachable DATABASE_DIRECT_URL stops the start, named without its password", () =>
    Effect.gen(function* () {
      const url = yield* TestDatabase.TestDatabaseUrl
      const closedPort = yield* Effect.promise(freePort)
      const { code, output } = yield* startFails({
        DATABASE_URL: url,
        DATABASE_DIRECT_URL: `postgres://receivables:hunter2-direct@127.0.0.1:${closedPort}/receivables`
      })
      assert.strictEqual(code, 1)
      assert.include(output, `cannot use PostgreSQL at postgres://receivables@127.0.0.1:${closedPort}/receivables`)
      assert.notInclude(output, "hunter2-direct")
    })
  )

  it.effect("DATABASE_PREPARED_STATEMENTS takes true or false only", () =>
    Effect.gen(function* () {
      const url = yield* TestDatabase.TestDatabaseUrl
      const { code, output } = yield* startFails({ DATABASE_URL: url, DATABASE_PREPARED_STATEMENTS: "sometimes" })
      assert.strictEqual(code, 1)
      assert.include(output, "DATABASE_PREPARED_STATEMENTS")
    })
  )
})
