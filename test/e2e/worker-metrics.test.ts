/**
 * A worker is observable on its own: with `METRICS_PORT` it serves `/metrics` like an API process,
 * with its syncs (by outcome, and how long they took), the pairs overdue, and the process's
 * memory, CPU and event-loop delay.
 */
import { assert, layer } from "@effect/vitest"
import { Effect } from "effect"
import { SqlClient } from "effect/sql"
import { spawnApp } from "../support/AppProcess.ts"
import { freePort } from "../support/ports.ts"
import { rawGet } from "../support/RawHttp.ts"
import * as TestDatabase from "../support/TestDatabase.ts"

layer(TestDatabase.layer, { timeout: 120_000, excludeTestServices: true })("a worker's metrics", (it) => {
  it.effect("METRICS_PORT on a worker serves its syncs and the process's figures after a sync", () =>
    Effect.gen(function* () {
      const sql = yield* SqlClient.SqlClient
      const url = yield* TestDatabase.TestDatabaseUrl
      const [org] = yield* sql<{ id: string }>`INSERT INTO organizations (name) VALUES ('Metrics') RETURNING id`
      const [vendor] = yield* sql<{ id: string }>`
        INSERT INTO vendors (org_id, name) VALUES (${org!.id}, 'Vendor') RETURNING id`
      const [debtor] = yield* sql<{ id: string }>`INSERT INTO debtors (name) VALUES ('Debtor') RETURNING id`
      yield* sql`
        INSERT INTO integrations (org_id, vendor_id, debtor_id, connector, config, next_sync_at)
        VALUES (${org!.id}, ${vendor!.id}, ${debtor!.id}, 'simulator',
          ${JSON.stringify({ seed: 3, receivables: 5, startedAt: "2026-01-01T00:00:00Z", perDay: 1 })}::jsonb, now())`
      const metricsPort = yield* Effect.promise(freePort)
      const worker = yield* Effect.acquireRelease(
        Effect.sync(() =>
          spawnApp(
            { DATABASE_URL: url, DEMO_SEED: "false", SYNC_POLL_SECONDS: "0.2", METRICS_PORT: String(metricsPort) },
            "worker"
          )
        ),
        (app) =>
          Effect.promise(async () => {
            app.child.kill("SIGTERM")
            await app.exited
          })
      )
      const scraped = yield* Effect.promise(async () => {
        const deadline = Date.now() + 60_000
        let last = ""
        while (Date.now() < deadline) {
          if (worker.child.exitCode !== null) throw new Error(`the worker exited: ${worker.output()}`)
          const answer = await rawGet(`http://127.0.0.1:${metricsPort}`, "/metrics").catch(() => undefined)
          last = answer?.body ?? ""
          if (/^sync_runs_total\{outcome="succeeded"\} 1$/m.test(last)) return last
          await new Promise((resolve) => setTimeout(resolve, 100))
        }
        throw new Error(`no sync in the worker's metrics within 60 s: ${last}\n${worker.output()}`)
      })
      assert.match(scraped, /^sync_run_duration_seconds_count\{outcome="succeeded"\} 1$/m)
      assert.match(scraped, /^sync_run_duration_seconds_bucket\{outcome="succeeded",le="\+Inf"\} 1$/m)
      assert.match(scraped, /^sync_pairs_overdue 0$/m)
      assert.match(scraped, /^process_resident_memory_bytes [1-9]\d*$/m)
      assert.match(scraped, /^nodejs_heap_used_bytes [1-9]\d*$/m)
      assert.match(scraped, /^process_cpu_seconds_total \d+(\.\d+)?(e[-+]?\d+)?$/m)
      assert.match(scraped, /^nodejs_eventloop_delay_p99_seconds \d+(\.\d+)?(e[-+]?\d+)?$/m)
      // A worker has no audit queue of its own to show.
      assert.notMatch(scraped, /^audit_queue_depth/m)
    }).pipe(Effect.scoped)
  )
})
