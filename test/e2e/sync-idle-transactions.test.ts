/**
 * A worker process syncing a pair whose portal takes 5 s to answer each of its two pages holds no
 * database transaction while it waits: `pg_stat_activity`, sampled every 100 ms through the sync,
 * shows no backend idle in a transaction for more than a second, and none in a transaction at all
 * while a page is awaited. The run's record tells its fetch (the portal's 10 s) from its apply
 * (a fraction of a second), and its end is its commit.
 */
import { randomBytes } from "node:crypto"
import { createServer } from "node:http"
import type { AddressInfo } from "node:net"
import { assert, layer } from "@effect/vitest"
import { Duration, Effect } from "effect"
import { SqlClient } from "effect/sql"
import { spawnApp } from "../support/AppProcess.ts"
import * as TestDatabase from "../support/TestDatabase.ts"

const pageSeconds = 5
const pageSize = 2

const invoice = (n: number) => ({
  id: `inv-${n}`,
  total: "125.00",
  currency: "EUR",
  issued_on: "2026-11-01",
  state: "open"
})

/** A portal answering page 1 (two invoices) and page 2 (one) after `pageSeconds` each. */
const slowPortal = Effect.acquireRelease(
  Effect.callback<{ server: ReturnType<typeof createServer>; origin: string; awaited: () => number }>((resume) => {
    let awaited = 0
    const server = createServer((request, response) => {
      const page = Number(new URL(request.url ?? "/", "http://127.0.0.1").searchParams.get("page"))
      awaited += 1
      setTimeout(() => {
        awaited -= 1
        const count = page === 1 ? pageSize : page === 2 ? 1 : 0
        response.writeHead(200, { "content-type": "application/json" })
        response.end(
          JSON.stringify({ data: Array.from({ length: count }, (_, i) => invoice((page - 1) * pageSize + i)) })
        )
      }, pageSeconds * 1000)
    })
    server.listen(0, "127.0.0.1", () => {
      const { port } = server.address() as AddressInfo
      resume(Effect.succeed({ server, origin: `http://127.0.0.1:${port}`, awaited: () => awaited }))
    })
  }),
  ({ server }) =>
    Effect.callback<void>((resume) => {
      server.closeAllConnections()
      server.close(() => resume(Effect.void))
    })
)

interface Sample {
  readonly idleInTransaction: number
  readonly inTransaction: number
}

layer(TestDatabase.layer, { timeout: 120_000, excludeTestServices: true })("a sync with a slow portal", (it) => {
  it.effect("holds no transaction while the portal answers, and records its fetch and its commit", () =>
    Effect.scoped(
      Effect.gen(function* () {
        const sql = yield* SqlClient.SqlClient
        const url = yield* TestDatabase.TestDatabaseUrl
        const portal = yield* slowPortal
        const config = {
          baseUrl: `${portal.origin}/`,
          path: "invoices",
          auth: { type: "none" },
          pagination: { style: "page", pageParam: "page", sizeParam: "per_page", size: pageSize },
          items: "data",
          fields: {
            documentKey: "id",
            amount: "total",
            currency: "currency",
            receivableDate: "issued_on",
            status: "state"
          },
          decimalSeparator: ".",
          dateOrder: "YMD"
        }
        const [pair] = yield* sql<{ id: string }>`
          WITH o AS (INSERT INTO organizations (name) VALUES ('Slow') RETURNING id),
            v AS (INSERT INTO vendors (org_id, name) SELECT id, 'Slow vendor' FROM o RETURNING id, org_id),
            d AS (INSERT INTO debtors (name) VALUES ('Slow debtor') RETURNING id)
          INSERT INTO integrations (org_id, vendor_id, debtor_id, connector, config, next_sync_at)
          SELECT v.org_id, v.id, d.id, 'http-json', ${JSON.stringify(config)}::jsonb, now() FROM v, d RETURNING id`
        const app = spawnApp(
          {
            DATABASE_URL: url,
            WEBHOOK_SECRET_KEYS: `1:${randomBytes(32).toString("base64")}`,
            SYNC_POLL_SECONDS: "0.2",
            SYNC_CONCURRENCY: "1"
          },
          "worker"
        )
        yield* Effect.addFinalizer(() =>
          Effect.promise(() => {
            app.child.kill("SIGTERM")
            return app.exited
          })
        )
        // Every backend of this database but the sampler's own: the worker's, and this test's
        // idle pool. Durations by the database clock.
        const sample = Effect.map(
          sql<{ idle: number | null; open: number }>`
            SELECT max(extract(epoch FROM clock_timestamp() - state_change))
                FILTER (WHERE state = 'idle in transaction') AS idle,
              count(*) FILTER (WHERE xact_start IS NOT NULL
                AND clock_timestamp() - xact_start > interval '200 milliseconds')::int AS open
            FROM pg_stat_activity
            WHERE datname = current_database() AND pid <> pg_backend_pid() AND backend_type = 'client backend'`,
          ([row]): Sample => ({ idleInTransaction: Number(row?.idle ?? 0), inTransaction: row?.open ?? 0 })
        )
        const done = Effect.map(
          sql<{ n: number }>`
            SELECT count(*)::int AS n FROM sync_runs WHERE integration_id = ${pair!.id} AND outcome IS NOT NULL`,
          ([row]) => row!.n > 0
        )
        const samples: Array<Sample & { readonly awaiting: boolean }> = []
        // Bounded: the sync takes the portal's 10 s; a minute is the most it is given.
        for (let i = 0; i < 600 && !(yield* done); i++) {
          const awaiting = portal.awaited() > 0
          samples.push({ ...(yield* sample), awaiting })
          yield* Effect.sleep(Duration.millis(100))
        }
        const [run] = yield* sql<{
          outcome: string
          created: number
          fetching: number
          applying: number
          ended_at_commit: boolean
        }>`
          SELECT outcome, created, extract(epoch FROM fetched_at - started_at) AS fetching,
            extract(epoch FROM committed_at - fetched_at) AS applying, finished_at = committed_at AS ended_at_commit
          FROM sync_runs WHERE integration_id = ${pair!.id}`
        assert.strictEqual(run?.outcome, "succeeded", app.output())
        assert.strictEqual(run!.created, 3)
        const waits = samples.filter((s) => s.awaiting)
        assert.isAtLeast(waits.length, 50, "the portal's waits were sampled")
        assert.isAtMost(
          Math.max(...samples.map((s) => s.idleInTransaction)),
          1,
          "no backend idle in transaction over 1 s"
        )
        assert.deepStrictEqual(
          waits.filter((s) => s.inTransaction > 0),
          [],
          "no transaction open while a page was awaited"
        )
        assert.isAtLeast(Number(run!.fetching), 2 * pageSeconds)
        assert.isBelow(Number(run!.applying), 2)
        assert.isTrue(run!.ended_at_commit)
      })
    )
  )
})
