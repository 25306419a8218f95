/**
 * No demo in production: on a database of one's own (`DATABASE_URL`) `serve` seeds nothing and
 * prints no key unless `DEMO_SEED=true`; and with it, API processes starting at the same moment
 * on an empty database seed one demo between them, whose key and invite only the seeding process
 * prints.
 */
import { assert, describe, it } from "@effect/vitest"
import { Effect, Redacted } from "effect"
import { SqlClient } from "effect/sql"
import * as Database from "../../adapters/postgres/Database.ts"
import { type AppProcess, healthy, spawnApp } from "../support/AppProcess.ts"
import { freePort } from "../support/ports.ts"
import * as TestDatabase from "../support/TestDatabase.ts"

const welcome = /Demo API key/
const skipped = /no demo: /

/** Waits (bounded) until every process has printed one of `patterns`; the outputs. */
const settled = (apps: ReadonlyArray<AppProcess>, patterns: ReadonlyArray<RegExp>) =>
  Effect.promise(async () => {
    const deadline = Date.now() + 90_000
    const done = (app: AppProcess) => patterns.some((pattern) => pattern.test(app.output()))
    while (Date.now() < deadline && !apps.every(done)) {
      for (const app of apps) if (app.child.exitCode !== null) throw new Error(`exited: ${app.output()}`)
      await new Promise((resolve) => setTimeout(resolve, 50))
    }
    return apps.map((app) => app.output())
  })

const serve = (url: string, env: Record<string, string>) =>
  Effect.acquireRelease(
    Effect.promise(async () => {
      const port = await freePort()
      const app = spawnApp(
        { DATABASE_URL: url, PORT: String(port), HOST: "127.0.0.1", LOG_LEVEL: "Debug", LOG_FORMAT: "json", ...env },
        "serve"
      )
      return { app, base: `http://127.0.0.1:${port}` }
    }),
    ({ app }) =>
      Effect.promise(async () => {
        app.child.kill("SIGTERM")
        await app.exited
      })
  )

/** Organizations in the database at `url`. */
const organizations = (url: string) =>
  Effect.flatMap(SqlClient.SqlClient, (sql) => sql<{ n: bigint }>`SELECT count(*) AS n FROM organizations`).pipe(
    Effect.map(([row]) => Number(row!.n)),
    Effect.provide(Database.layerUrl(Redacted.make(url), { maxConnections: 1 })),
    Effect.orDie
  )

// Each test on a migrated database of its own, with no organization.
describe("the demo at start", () => {
  it.live(
    "with DATABASE_URL and no DEMO_SEED: no demo, no key, no invite printed",
    () =>
      Effect.gen(function* () {
        const { url } = yield* TestDatabase.createDatabase
        const { app, base } = yield* serve(url, {})
        yield* Effect.promise(() => healthy(base, app))
        const [output] = yield* settled([app], [welcome, skipped])
        assert.match(output!, /no demo: DEMO_SEED is off/)
        assert.notMatch(output!, welcome)
        assert.notMatch(output!, /\/dashboard\/invite\//)
        assert.strictEqual(yield* organizations(url), 0)
      }).pipe(Effect.scoped),
    180_000
  )

  it.live(
    "two serve starting at once on an empty database with DEMO_SEED=true seed one demo",
    () =>
      Effect.gen(function* () {
        const { url } = yield* TestDatabase.createDatabase
        assert.strictEqual(yield* organizations(url), 0)
        const [first, second] = yield* Effect.all(
          [serve(url, { DEMO_SEED: "true" }), serve(url, { DEMO_SEED: "true" })],
          {
            concurrency: 2
          }
        )
        const outputs = yield* settled([first!.app, second!.app], [welcome, skipped])
        assert.strictEqual(yield* organizations(url), 1, "one demo organization")
        const welcomed = outputs.filter((output) => welcome.test(output))
        assert.strictEqual(welcomed.length, 1, "one process printed the demo's key")
        const quiet = outputs.find((output) => !welcome.test(output))!
        assert.match(quiet, /no demo: the database has organizations already/)
        assert.notMatch(quiet, /pr_live_|\/dashboard\/invite\//)
      }).pipe(Effect.scoped),
    180_000
  )
})
