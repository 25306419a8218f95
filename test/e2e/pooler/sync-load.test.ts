/**
 * The API under load while both workers sync slow portals, behind PgBouncer in transaction mode
 * with 8 server connections: 2 workers at `SYNC_CONCURRENCY = 8` keep 16 syncs in flight, each
 * portal answering a page every half second for the whole of the load. A sync holds a server
 * connection only while it stages a page and while it applies, so no API request waits on the
 * pool until its deadline: every request of the load is answered 200. (Before the sync ran in
 * two phases, the 16 open transactions pinned every server connection and the API answered 503.)
 * The API's p50 and p99 without syncs and with them, and their ratio, are printed: timings on a
 * shared machine are a benchmark's figures (`bench/results/`), not this test's verdict.
 */
import { assert, layer } from "@effect/vitest"
import { Context, Duration, Effect, Layer } from "effect"
import { SqlClient } from "effect/sql"
import { eventually } from "../../support/Eventually.ts"
import { json, mockPortal } from "../../support/MockPortal.ts"
import * as TestDatabase from "../../support/TestDatabase.ts"
import * as Cluster from "./Cluster.ts"
import { newOrganization } from "./Organizations.ts"

const workers = 2
const concurrency = 8
// Syncs in flight at once: every slot of both workers.
const syncing = workers * concurrency
// A scheduler claims four pairs a slot at a time: so many pairs that each worker claims enough to fill its slots.
const pairs = 4 * syncing
// Shorter than the default, so that a request starved of the pool is answered 503 within the load.
const deadlineSeconds = 2

class Running extends Context.Service<Running, Cluster.Cluster>()("test/SyncLoadCluster") {}

const ClusterLive = Layer.effect(
  Running,
  Effect.flatMap(TestDatabase.TestDatabaseUrl, (url) =>
    Cluster.start(url, {
      apis: 1,
      workers,
      serverConnections: 8,
      env: {
        SYNC_POLL_SECONDS: "0.2",
        SYNC_CONCURRENCY: String(concurrency),
        // Room in each process's pool for every sync it runs at once: the pooler is the limit.
        DATABASE_POOL_SIZE: String(concurrency + 2),
        REQUEST_DEADLINE_SECONDS: String(deadlineSeconds),
        // Only the pool is under test: the key's and organization's limits are out of reach.
        RATE_LIMIT_BURST: "100000",
        RATE_LIMIT_PER_SECOND: "100000",
        ORG_RATE_LIMIT_BURST: "100000",
        ORG_RATE_LIMIT_PER_SECOND: "100000",
        KEY_MAX_IN_FLIGHT: "10000",
        ORG_MAX_IN_FLIGHT: "10000"
      }
    })
  )
)

const TestLayer = ClusterLive.pipe(Layer.provideMerge(TestDatabase.layer))

const pageSize = 20
const pageDelayMs = 500
// A portal never has more pages than this, whatever happens to the load.
const maxPages = 100

const config = (origin: string, pair: number) => ({
  baseUrl: `${origin}/p${pair}/`,
  path: "invoices",
  auth: { type: "none" },
  pagination: { style: "page", pageParam: "page", sizeParam: "per_page", size: pageSize },
  items: "data",
  fields: { documentKey: "id", amount: "total", currency: "currency", receivableDate: "issued_on", status: "state" },
  decimalSeparator: ".",
  dateOrder: "YMD"
})

const invoice = (n: number) => ({
  id: `inv-${n}`,
  total: "125.00",
  currency: "EUR",
  issued_on: "2026-11-01",
  state: "open"
})

interface Load {
  readonly statuses: ReadonlyMap<number | "no answer", number>
  readonly latencies: ReadonlyArray<number>
}

const clients = 8
const loadMs = 6_000
// Per client: bounds the loop whatever the answers' speed.
const maxRequests = 3_000

/** `clients` loops of `GET /v1/receivables` for `ms`: each answer's status and time. */
const load = (base: string, key: string, ms = loadMs) =>
  Effect.promise(async (): Promise<Load> => {
    const statuses = new Map<number | "no answer", number>()
    const latencies: Array<number> = []
    const end = Date.now() + ms
    const client = async () => {
      for (let i = 0; i < maxRequests && Date.now() < end; i++) {
        const started = performance.now()
        const status = await fetch(`${base}/v1/receivables?limit=50`, {
          headers: { authorization: `Bearer ${key}` },
          signal: AbortSignal.timeout(4 * deadlineSeconds * 1000)
        }).then(
          async (response) => {
            await response.arrayBuffer()
            return response.status
          },
          () => "no answer" as const
        )
        latencies.push(performance.now() - started)
        statuses.set(status, (statuses.get(status) ?? 0) + 1)
      }
    }
    await Promise.all(Array.from({ length: clients }, client))
    return { statuses, latencies }
  })

const percentile = (sorted: ReadonlyArray<number>, p: number) =>
  sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)]!

const summary = ({ latencies }: Load) => {
  const sorted = [...latencies].sort((a, b) => a - b)
  return { requests: sorted.length, p50: percentile(sorted, 50), p99: percentile(sorted, 99) }
}

layer(TestLayer, { timeout: 120_000, excludeTestServices: true })("behind PgBouncer in transaction mode", (it) => {
  it.effect(
    "16 slow syncs at once take no server connection the API waits for: every request is answered in time",
    () =>
      Effect.scoped(
        Effect.gen(function* () {
          const sql = yield* SqlClient.SqlClient
          const { apis } = yield* Running
          // While true, every portal has a next page; the page after the load is the last.
          let loading = true
          const asking = new Set<string>()
          const portal = yield* mockPortal((_request, url) => {
            const [, pair] = url.pathname.split("/")
            asking.add(pair!)
            const page = Number(url.searchParams.get("page"))
            const count = loading && page <= maxPages ? pageSize : 0
            const offset = (page - 1) * pageSize
            const answer = json({ data: Array.from({ length: count }, (_, i) => invoice(offset + i)) })
            return new Promise((resolve) => setTimeout(() => resolve(answer), pageDelayMs))
          })
          const { orgId, key } = yield* newOrganization("Sync load", 47)
          // What the API lists: a page of the receivables of a pair synced beforehand.
          yield* sql`
          WITH v AS (INSERT INTO vendors (org_id, name) VALUES (${orgId}, 'Listed vendor') RETURNING id),
            d AS (INSERT INTO debtors (name) VALUES ('Listed debtor') RETURNING id)
          INSERT INTO integrations (org_id, vendor_id, debtor_id, connector, config, next_sync_at)
          SELECT ${orgId}, v.id, d.id, 'simulator',
            '{"seed":1,"receivables":200,"startedAt":"2026-01-01T00:00:00Z","perDay":10}'::jsonb, now()
          FROM v, d`
          const finished = sql<{ n: number }>`
          SELECT count(*)::int AS n FROM sync_runs WHERE org_id = ${orgId} AND outcome IS NOT NULL`
          yield* eventually("the listed pair synced", Effect.orDie(Effect.map(finished, ([row]) => row!.n === 1)), {
            attempts: 300,
            interval: Duration.millis(100)
          })

          const base = apis[0]!
          // Warm-up, not counted: the first requests of a process pay for its compilation and connections.
          yield* load(base, key, 2_000)
          const quiet = yield* load(base, key)

          yield* sql`INSERT INTO vendors (org_id, name) SELECT ${orgId}, 'Slow vendor ' || g FROM generate_series(1, ${pairs}) g`
          yield* sql`INSERT INTO debtors (name) VALUES ('Slow debtor')`
          const slow = Object.fromEntries(
            Array.from({ length: pairs }, (_, i) => [
              `Slow vendor ${i + 1}`,
              JSON.stringify(config(portal.origin, i + 1))
            ])
          )
          yield* sql`
          INSERT INTO integrations (org_id, vendor_id, debtor_id, connector, config, next_sync_at)
          SELECT v.org_id, v.id, d.id, 'http-json', (${JSON.stringify(slow)}::jsonb ->> v.name)::jsonb, now()
          FROM vendors v CROSS JOIN debtors d WHERE v.org_id = ${orgId} AND v.name LIKE 'Slow vendor %'
            AND d.name = 'Slow debtor'`
          yield* eventually(
            "every pair's sync fetching",
            Effect.sync(() => asking.size === syncing),
            { attempts: 300, interval: Duration.millis(100) }
          )
          const loaded = yield* load(base, key)
          // No sync had ended when the load did: the load ran beside all 16.
          assert.strictEqual((yield* finished)[0]!.n, 1)
          loading = false
          yield* eventually("every pair synced", Effect.orDie(Effect.map(finished, ([row]) => row!.n === pairs + 1)), {
            attempts: 300,
            interval: Duration.millis(100)
          })
          const [runs] = yield* sql<{ succeeded: number; fetched: number }>`
          SELECT count(*) FILTER (WHERE outcome = 'succeeded')::int AS succeeded,
            count(*) FILTER (WHERE r.fetched >= ${(loadMs / pageDelayMs / 2) * pageSize})::int AS fetched
          FROM sync_runs r JOIN integrations i ON i.id = r.integration_id
          WHERE r.org_id = ${orgId} AND i.connector = 'http-json'`
          assert.strictEqual(runs!.succeeded, pairs)
          // The 16 syncs in flight were answered pages all through the load.
          assert.strictEqual(runs!.fetched, syncing)

          const without = summary(quiet)
          const withSyncs = summary(loaded)
          console.log(
            `API p50/p99 without syncs: ${without.p50.toFixed(1)}/${without.p99.toFixed(1)} ms (${without.requests} requests); ` +
              `with ${syncing} syncs: ${withSyncs.p50.toFixed(1)}/${withSyncs.p99.toFixed(1)} ms (${withSyncs.requests} requests); ` +
              `p99 ratio ${(withSyncs.p99 / without.p99).toFixed(2)}x`
          )
          assert.deepStrictEqual([...quiet.statuses], [[200, quiet.latencies.length]])
          assert.deepStrictEqual(
            [...loaded.statuses],
            [[200, loaded.latencies.length]],
            "no request waited out its deadline"
          )
        })
      )
  )
})
