/**
 * A worker killed while its apply transaction is open, behind PgBouncer in transaction mode: the
 * test holds `sync_runs` locked, so a resync of a pair of two chunks writes its first chunk and
 * then waits on the run's record, inside its transaction (seen in `pg_locks` before the kill).
 * Once the worker is SIGKILLed the transaction rolls back: every receivable, history entry and
 * event of the pair is as before the run. The other worker syncs the pair within a minute (the
 * lease being short here), and the pair is then wholly new.
 */
import { assert, layer } from "@effect/vitest"
import { Context, Duration, Effect, Layer } from "effect"
import { SqlClient } from "effect/sql"
import { defaultChunkSize } from "../../../core/receivables/services/SyncEngine.ts"
import { eventually } from "../../support/Eventually.ts"
import { json, mockPortal } from "../../support/MockPortal.ts"
import { lockTable } from "../../support/TableLock.ts"
import * as TestDatabase from "../../support/TestDatabase.ts"
import * as Cluster from "./Cluster.ts"
import { newOrganization } from "./Organizations.ts"

class Running extends Context.Service<Running, Cluster.Cluster>()("test/KillMidApplyCluster") {}

const ClusterLive = Layer.effect(
  Running,
  Effect.flatMap(TestDatabase.TestDatabaseUrl, (url) =>
    Cluster.start(url, {
      apis: 0,
      workers: 2,
      serverConnections: 8,
      // A short lease: the killed worker's pair is taken over seconds after it died.
      env: { SYNC_POLL_SECONDS: "0.2", SYNC_CONCURRENCY: "2", SYNC_LEASE_SECONDS: "3" }
    })
  )
)

const TestLayer = ClusterLive.pipe(Layer.provideMerge(TestDatabase.layer))

// Two pages of a chunk each, so that the apply writes its first chunk before it records the run.
const pages = 2
const documents = pages * defaultChunkSize

/** The portal's invoices at `total`: the resync changes every one of them. */
const invoice = (n: number, total: string) => ({
  id: `inv-${n}`,
  total,
  currency: "EUR",
  issued_on: "2026-11-01",
  state: "open"
})

const config = (origin: string) => ({
  baseUrl: `${origin}/`,
  path: "invoices",
  auth: { type: "none" },
  pagination: { style: "page", pageParam: "page", sizeParam: "per_page", size: defaultChunkSize },
  items: "data",
  fields: { documentKey: "id", amount: "total", currency: "currency", receivableDate: "issued_on", status: "state" },
  decimalSeparator: ".",
  dateOrder: "YMD"
})

layer(TestLayer, { timeout: 180_000, excludeTestServices: true })("behind PgBouncer in transaction mode", (it) => {
  it.effect(
    "a worker killed mid-apply rolls back: the pair is wholly old, and another worker syncs it within a minute",
    () =>
      Effect.scoped(
        Effect.gen(function* () {
          const sql = yield* SqlClient.SqlClient
          const { workers, workerName } = yield* Running
          let total = "125.00"
          const portal = yield* mockPortal((_request, url) => {
            const page = Number(url.searchParams.get("page"))
            const offset = (page - 1) * defaultChunkSize
            const count = page <= pages ? defaultChunkSize : 0
            return json({ data: Array.from({ length: count }, (_, i) => invoice(offset + i, total)) })
          })
          const { orgId } = yield* newOrganization("Killed apply", 46)
          const [pair] = yield* sql<{ id: string }>`
          WITH v AS (INSERT INTO vendors (org_id, name) VALUES (${orgId}, 'Killed apply vendor') RETURNING id),
            d AS (INSERT INTO debtors (name) VALUES ('Killed apply debtor') RETURNING id)
          INSERT INTO integrations (org_id, vendor_id, debtor_id, connector, config, next_sync_at)
          SELECT ${orgId}, v.id, d.id, 'http-json', ${JSON.stringify(config(portal.origin))}::jsonb, now()
          FROM v, d RETURNING id`
          const pairId = pair!.id
          const succeeded = sql<{ worker: string }>`
          SELECT worker FROM sync_runs WHERE integration_id = ${pairId} AND outcome = 'succeeded' ORDER BY started_at`
          yield* eventually("the first sync", Effect.orDie(Effect.map(succeeded, (runs) => runs.length === 1)), {
            attempts: 600,
            interval: Duration.millis(100)
          })

          // What a reader sees of the pair: its receivables' amounts, its history and its events.
          const state = Effect.map(
            sql<{ amounts: string; history: number; events: number }>`
            SELECT
              (SELECT string_agg(DISTINCT amount_cents::text, ',') FROM receivables
                WHERE org_id = ${orgId} AND integration_id = ${pairId}) AS amounts,
              (SELECT count(*) FROM receivable_history h JOIN receivables r ON r.id = h.receivable_id
                WHERE r.org_id = ${orgId} AND r.integration_id = ${pairId})::int AS history,
              (SELECT count(*) FROM events WHERE org_id = ${orgId})::int AS events`,
            ([row]) => row!
          )
          const old = yield* state
          assert.strictEqual(old.amounts, "12500")

          // The resync, held on the run's record inside its apply transaction.
          const unlock = yield* lockTable("sync_runs")
          total = "130.00"
          yield* sql`UPDATE integrations SET next_sync_at = now() WHERE id = ${pairId}`
          // The backend waiting on `sync_runs` already wrote the first chunk's changes to receivables.
          const held = sql<{ pid: number; wrote: boolean }>`
          SELECT w.pid, EXISTS (
            SELECT 1 FROM pg_locks l WHERE l.pid = w.pid AND l.relation = 'receivables'::regclass
              AND l.mode = 'RowExclusiveLock' AND l.granted) AS wrote
          FROM pg_locks w
          WHERE w.relation = 'sync_runs'::regclass AND NOT w.granted AND w.database = (
            SELECT oid FROM pg_database WHERE datname = current_database())`
          yield* eventually(
            "the apply waiting on the run's record after writing its first chunk",
            Effect.orDie(Effect.map(held, (rows) => rows.length === 1 && rows[0]!.wrote)),
            { attempts: 600, interval: Duration.millis(100) }
          )
          const [backend] = yield* held
          const [lease] = yield* sql<{
            owner: string
          }>`SELECT lease_owner AS owner FROM integrations WHERE id = ${pairId}`
          const victim = workers.find((worker) => workerName(worker) === lease!.owner)!
          const survivor = workers.find((worker) => worker !== victim)!
          victim.child.kill("SIGKILL")
          yield* Effect.promise(() => victim.exited)
          const killedAt = Date.now()

          // Killed with its transaction open: nothing of the run is seen, before or after it ends.
          assert.deepStrictEqual(yield* state, old)
          yield* unlock
          const gone = sql<{ n: number }>`SELECT count(*)::int AS n FROM pg_stat_activity WHERE pid = ${backend!.pid}`
          yield* eventually("the killed run's backend ended", Effect.orDie(Effect.map(gone, ([row]) => row!.n === 0)), {
            attempts: 600,
            interval: Duration.millis(100)
          })
          assert.deepStrictEqual(yield* state, old)
          assert.strictEqual((yield* succeeded).length, 1)

          yield* eventually(
            "another worker synced the pair",
            Effect.orDie(Effect.map(succeeded, (runs) => runs.length === 2)),
            { attempts: 600, interval: Duration.millis(100) }
          )
          assert.isBelow(Date.now() - killedAt, 60_000, "the pair was synced again within a minute of the kill")
          assert.strictEqual((yield* succeeded)[1]!.worker, workerName(survivor))
          const synced = yield* state
          assert.strictEqual(synced.amounts, "13000")
          assert.strictEqual(synced.history, old.history + documents)
          assert.isAbove(synced.events, old.events)
        })
      )
  )
})
