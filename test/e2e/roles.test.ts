/**
 * Process roles against one database: two `worker` processes share the due pairs (each synced
 * exactly once, by whichever worker claimed it), and a `serve` process answers with what they
 * wrote.
 */
import { type ChildProcess, spawn } from "node:child_process"
import { join } from "node:path"
import { assert, layer } from "@effect/vitest"
import { Effect } from "effect"
import { SqlClient } from "effect/sql"
import { makeApiKey, secretBytes } from "../../core/access/domain/ApiKey.ts"
import { eventually } from "../support/Eventually.ts"
import { freePort } from "../support/ports.ts"
import * as TestDatabase from "../support/TestDatabase.ts"

const root = join(import.meta.dirname, "..", "..")
const key = makeApiKey("pr", new Uint8Array(secretBytes).fill(11))

const start = (role: "serve" | "worker", env: Record<string, string>) =>
  Effect.acquireRelease(
    Effect.sync(() =>
      spawn(process.execPath, [join(root, "app", "main.ts"), role], {
        env: { ...process.env, ...env, SYNC_POLL_SECONDS: "0.2", DEMO_SEED: "false" },
        stdio: ["ignore", "ignore", "pipe"]
      })
    ),
    (child: ChildProcess) => Effect.sync(() => child.kill("SIGTERM"))
  )

layer(TestDatabase.layer, { timeout: 120_000, excludeTestServices: true })("process roles", (it) => {
  it.effect("two workers and one API process share one database", () =>
    Effect.gen(function* () {
      const sql = yield* SqlClient.SqlClient
      const url = yield* TestDatabase.TestDatabaseUrl
      const [org] = yield* sql<{ id: string }>`INSERT INTO organizations (name) VALUES ('Roles') RETURNING id`
      yield* sql`INSERT INTO api_keys (org_id, key_hash, display_start)
        VALUES (${org!.id}, sha256(convert_to(${key}, 'UTF8')), 'pr_live_role')`
      yield* sql`INSERT INTO vendors (org_id, name) SELECT ${org!.id}, 'Vendor ' || g FROM generate_series(1, 4) g`
      yield* sql`INSERT INTO debtors (name) SELECT 'Debtor ' || g FROM generate_series(1, 3) g`
      yield* sql`
        INSERT INTO integrations (org_id, vendor_id, debtor_id, connector, config, next_sync_at)
        SELECT v.org_id, v.id, d.id, 'simulator',
          jsonb_build_object('seed', row_number() OVER (), 'receivables', 20, 'startedAt', '2026-01-01T00:00:00Z',
            'perDay', 1),
          now()
        FROM vendors v CROSS JOIN debtors d WHERE v.org_id = ${org!.id}`

      const port = yield* Effect.promise(freePort)
      yield* start("worker", { DATABASE_URL: url })
      yield* start("worker", { DATABASE_URL: url })
      yield* start("serve", { DATABASE_URL: url, PORT: String(port), HOST: "127.0.0.1" })

      let runs: ReadonlyArray<{ integration_id: string; worker: string }> = []
      yield* eventually(
        "12 syncs succeeded",
        Effect.map(
          sql<{ integration_id: string; worker: string }>`
            SELECT integration_id, worker FROM sync_runs WHERE outcome = 'succeeded'`,
          (rows) => {
            runs = rows
            return rows.length >= 12
          }
        ),
        { attempts: 800 }
      )
      assert.strictEqual(runs.length, 12)
      assert.strictEqual(new Set(runs.map((r) => r.integration_id)).size, 12, "each pair synced once")

      let answer: { status: number; total: number } = { status: 0, total: 0 }
      yield* eventually(
        "the API process answering",
        Effect.map(
          Effect.promise(() =>
            fetch(`http://127.0.0.1:${port}/v1/receivables?verified_since=all&limit=1`, {
              headers: { authorization: `Bearer ${key}` }
            }).then(
              async (r) => ({
                status: r.status,
                total: r.ok ? ((await r.json()) as { total_count: number }).total_count : 0
              }),
              () => ({ status: 0, total: 0 })
            )
          ),
          (answered) => {
            answer = answered
            return answered.status === 200
          }
        )
      )
      const [stored] = yield* sql<{ n: bigint }>`SELECT count(*) AS n FROM receivables`
      assert.strictEqual(answer.status, 200)
      assert.strictEqual(answer.total, Number(stored!.n))
      assert.strictEqual(Number(stored!.n), 12 * 20)
    })
  )
})
