/**
 * Many processes behind PgBouncer in transaction mode (prepared statements off), as operators
 * scale the service out: 3 API processes and 2 workers share 8 server connections. A key revoked
 * through one process is refused by the others on their next request (its announcement reaches
 * them first), and one revoked by hand with no announcement within a second (the shared limits'
 * refill, at least every second, reads the key's row); the SDK's copy equals a fresh
 * full load on either feed while both workers sync; a worker killed mid-fetch leaves nothing of its
 * run, and another finishes the pair once the lease has run out (within a minute, the lease
 * being short here); every request answered here has
 * exactly one audit entry. The shared limits' check is `limits.test.ts`, on clusters of its own.
 */

import { assert, layer } from "@effect/vitest"
import { Context, Duration, Effect, Layer } from "effect"
import { SqlClient } from "effect/sql"
import { AccountsLive } from "../../../app/Layers.ts"
import { PartnerReceivables } from "../../../client/src/mod.ts"
import * as LocalAllowance from "../../../core/access/domain/LocalAllowance.ts"
import { defaultChunkSize } from "../../../core/receivables/services/SyncEngine.ts"
import { run, signedIn } from "../../support/DashboardClient.ts"
import { eventually } from "../../support/Eventually.ts"
import { json, mockPortal } from "../../support/MockPortal.ts"
import { byId, consumer, fullLoad } from "../../support/SdkCopy.ts"
import * as TestDatabase from "../../support/TestDatabase.ts"
import * as Cluster from "./Cluster.ts"
import { newOrganization } from "./Organizations.ts"

class Running extends Context.Service<Running, Cluster.Cluster>()("test/PoolerCluster") {}

const ClusterLive = Layer.effect(
  Running,
  Effect.flatMap(TestDatabase.TestDatabaseUrl, (url) =>
    Cluster.start(url, {
      apis: 3,
      workers: 2,
      serverConnections: 8,
      // Verified keys are cached for 5 minutes: a process answering from its cache would pass a revoked key.
      // A short lease: a killed worker's pair is taken over seconds after it died.
      env: { SYNC_POLL_SECONDS: "0.2", SYNC_CONCURRENCY: "2", KEY_CACHE_SECONDS: "300", SYNC_LEASE_SECONDS: "3" }
    })
  )
)

const TestLayer = Layer.mergeAll(ClusterLive, AccountsLive).pipe(Layer.provideMerge(TestDatabase.layer))

// Every API answer the suite gets, by its Request-Id: each must have exactly one audit entry.
const answered = new Set<string>()

/** `fetch` through the API processes in turn, whatever base the caller named, noting each Request-Id. */
const roundRobin = (apis: ReadonlyArray<string>): typeof fetch => {
  let next = 0
  return async (input, init) => {
    const url = new URL(input instanceof Request ? input.url : String(input))
    const base = new URL(apis[next++ % apis.length]!)
    url.host = base.host
    const response = await fetch(url, init)
    const id = response.headers.get("request-id")
    if (id !== null && url.pathname.startsWith("/v1/")) answered.add(id)
    return response
  }
}

/** `GET /v1/vendors` with `key` on `base`: the status. */
const vendorsStatus = (base: string, key: string) =>
  run(async () => {
    const response = await roundRobin([base])(`${base}/v1/vendors`, { headers: { authorization: `Bearer ${key}` } })
    await response.body?.cancel()
    return response.status
  })

// Pages of the sync engine's chunk size, so that each page is a chunk the sync writes.
const crashPageSize = defaultChunkSize
const lastPage = 3

const invoice = (n: number) => ({
  id: `inv-${n}`,
  total: "125.00",
  currency: "EUR",
  issued_on: "2026-11-01",
  state: "open"
})

const crashConfig = (origin: string) => ({
  baseUrl: `${origin}/`,
  path: "invoices",
  auth: { type: "none" },
  pagination: { style: "page", pageParam: "page", sizeParam: "per_page", size: crashPageSize },
  items: "data",
  fields: { documentKey: "id", amount: "total", currency: "currency", receivableDate: "issued_on", status: "state" },
  decimalSeparator: ".",
  dateOrder: "YMD"
})

layer(TestLayer, { timeout: 180_000, excludeTestServices: true })("behind PgBouncer in transaction mode", (it) => {
  it.effect("a key revoked through one API process is refused by each other process on its very next request", () =>
    Effect.gen(function* () {
      const { apis } = yield* Running
      const { orgId } = yield* newOrganization("Revocations", 41)
      const { client, csrf } = yield* signedIn(apis[0]!, orgId, "admin")
      const created = yield* run(() => client.post("/dashboard/keys", { csrf, name: "shared" }))
      // The new key is shown once, on the page the creation redirects to.
      assert.strictEqual(created.status, 303)
      const shown = yield* run(() => client.get(created.headers.get("location") ?? ""))
      const key = /id="new-key"[^>]*value="(pr_live_[0-9A-Za-z]{39})"/.exec(shown.body)?.[1] ?? ""
      // Every process verifies the key once, so each would answer the next request from its cache.
      for (const base of apis) assert.strictEqual(yield* vendorsStatus(base, key), 200)

      const listed = yield* run(() => client.get("/dashboard/keys"))
      const id = /\/dashboard\/keys\/([0-9a-f-]{36})\/revoke"[^>]*aria-label="Revoke shared"/.exec(listed.body)?.[1]
      const revoked = yield* run(() => client.post(`/dashboard/keys/${id}/revoke`, { csrf }))
      assert.strictEqual(revoked.status, 303)
      // No wait: the announcement, sent at the revocation's commit over each process's direct
      // connection, is there before the next request, which the processes' allowances would admit.
      for (const base of apis.slice(1)) assert.strictEqual(yield* vendorsStatus(base, key), 401, base)
    })
  )

  it.effect("a key revoked with no announcement at all is refused by every process within a second", () =>
    Effect.gen(function* () {
      const sql = yield* SqlClient.SqlClient
      const { apis } = yield* Running
      const { keyId, key } = yield* newOrganization("Unannounced revocation", 45)
      for (const base of apis) assert.strictEqual(yield* vendorsStatus(base, key), 200)
      // Revoked by hand with the announcing trigger off: each process holds the key in its cache
      // for five minutes and a batch of its tokens, and only the database can tell it otherwise,
      // when the allowance lapses (a second) and its refill finds the key revoked.
      yield* sql.withTransaction(
        Effect.gen(function* () {
          yield* sql`ALTER TABLE api_keys DISABLE TRIGGER api_key_revoked`
          yield* sql`UPDATE api_keys SET revoked_at = now() WHERE id = ${keyId}`
          yield* sql`ALTER TABLE api_keys ENABLE TRIGGER api_key_revoked`
        })
      )
      for (const base of apis) {
        let code: string | undefined
        // The allowance's second, and half a second for the requests' round trips through the pooler.
        yield* eventually(
          `${base} refusing the key within ${LocalAllowance.lapseMillis + 500} ms`,
          Effect.map(
            run(() =>
              fetch(`${base}/v1/vendors`, { headers: { authorization: `Bearer ${key}` } }).then((r) => r.json())
            ),
            (answer) => {
              code = (answer as { error?: { code: string } }).error?.code
              return code !== undefined
            }
          ),
          { attempts: (LocalAllowance.lapseMillis + 500) / 50, interval: Duration.millis(50) }
        )
        assert.strictEqual(code, "api_key_revoked", base)
      }
    })
  )

  it.effect("the events feed and the watermark copy equal a full load while both workers sync", () =>
    Effect.gen(function* () {
      const sql = yield* SqlClient.SqlClient
      const { apis, workers, workerName } = yield* Running
      const { orgId, key } = yield* newOrganization("Feeds", 42)
      // 8 pairs on the simulator: each sync of a pair whose portal grew brings new receivables.
      yield* sql`INSERT INTO vendors (org_id, name) SELECT ${orgId}, 'Vendor ' || g FROM generate_series(1, 4) g`
      yield* sql`INSERT INTO debtors (name) SELECT 'Feeds debtor ' || g FROM generate_series(1, 2) g`
      yield* sql`
        INSERT INTO integrations (org_id, vendor_id, debtor_id, connector, config, next_sync_at)
        SELECT v.org_id, v.id, d.id, 'simulator',
          jsonb_build_object('seed', row_number() OVER (), 'receivables', 20, 'startedAt', '2026-01-01T00:00:00Z',
            'perDay', 1),
          now()
        FROM vendors v CROSS JOIN debtors d WHERE v.org_id = ${orgId} AND d.name LIKE 'Feeds debtor %'`
      const pairs = 8
      const runsOf = sql<{ n: number }>`
        SELECT count(*)::int AS n FROM sync_runs WHERE org_id = ${orgId} AND outcome = 'succeeded'`
      const client = new PartnerReceivables({ apiKey: key, baseUrl: apis[0]!, fetch: roundRobin(apis) })
      const readers = [consumer(client, "events", () => {}), consumer(client, "watermark", () => {})]

      // Four rounds: the portals grow, every pair is due, and the readers page while the workers sync.
      for (let round = 1; round <= 4; round++) {
        yield* sql`UPDATE integrations SET next_sync_at = now(),
            config = jsonb_set(config, '{receivables}', to_jsonb(20 + 10 * ${round}))
          WHERE org_id = ${orgId}`
        const synced = Effect.map(runsOf, ([row]) => row!.n >= pairs * round)
        yield* Effect.all(
          [
            eventually(`round ${round} synced`, Effect.orDie(synced), { attempts: 600 }),
            Effect.all(
              readers.map((reader) => reader.sync()),
              { concurrency: "unbounded" }
            )
          ],
          { concurrency: "unbounded" }
        )
      }
      const workersOf = sql<{ worker: string }>`
        SELECT DISTINCT worker FROM sync_runs WHERE org_id = ${orgId} AND outcome = 'succeeded'`
      // Which worker claims a due pair is a race: one may win all of four rounds. Further rounds
      // of the same portals (nothing new to read, at most six) until both have synced.
      let workersSeen = yield* workersOf
      for (let round = 5; round <= 10 && workersSeen.length < workers.length; round++) {
        yield* sql`UPDATE integrations SET next_sync_at = now() WHERE org_id = ${orgId}`
        const synced = Effect.map(runsOf, ([row]) => row!.n >= pairs * round)
        yield* eventually(`round ${round} synced`, Effect.orDie(synced), { attempts: 600 })
        workersSeen = yield* workersOf
      }
      assert.sameMembers(
        workersSeen.map((row) => row.worker),
        workers.map(workerName),
        "both workers synced"
      )

      const expected = yield* fullLoad(client)
      assert.strictEqual(expected.size, pairs * 60)
      for (const reader of readers) {
        yield* reader.sync()
        assert.deepStrictEqual(byId(reader.copy), byId(expected))
      }
    })
  )

  it.effect(
    "a worker killed mid-fetch loses no pair: another finishes it within a minute, none half applied, nothing left staged",
    () =>
      Effect.scoped(
        Effect.gen(function* () {
          const sql = yield* SqlClient.SqlClient
          const { workers, workerName } = yield* Running
          // A portal of three pages of a chunk each: the sync has staged the first by the time it
          // asks for the last (it reads a page ahead), which hangs until the worker asking is dead.
          let killed = false
          const portal = yield* mockPortal((_request, url) => {
            const page = Number(url.searchParams.get("page"))
            if (page === lastPage && !killed) return undefined
            const count = page < lastPage ? crashPageSize : page === lastPage ? 500 : 0
            const offset = (page - 1) * crashPageSize
            return json({ data: Array.from({ length: count }, (_, i) => invoice(offset + i)) })
          })
          const { orgId } = yield* newOrganization("Crash", 43)
          const [pair] = yield* sql<{ id: string }>`
          WITH v AS (INSERT INTO vendors (org_id, name) VALUES (${orgId}, 'Crash vendor') RETURNING id),
            d AS (INSERT INTO debtors (name) VALUES ('Crash debtor') RETURNING id)
          INSERT INTO integrations (org_id, vendor_id, debtor_id, connector, config, next_sync_at)
          SELECT ${orgId}, v.id, d.id, 'http-json', ${JSON.stringify(crashConfig(portal.origin))}::jsonb, now()
          FROM v, d RETURNING id`
          const pairId = pair!.id
          const stored = Effect.map(
            sql<{ n: number }>`SELECT count(*)::int AS n FROM receivables WHERE org_id = ${orgId}`,
            ([row]) => row!.n
          )
          // What the pair's runs staged, under their leases.
          const staged = Effect.map(
            sql<{ n: number }>`
            SELECT count(*)::int AS n FROM sync_staging s JOIN sync_leases l ON l.run_id = s.run_id
            WHERE l.integration_id = ${pairId}`,
            ([row]) => row!.n
          )
          yield* eventually(
            "the first chunk staged and the last page asked for",
            Effect.orDie(
              Effect.map(
                staged,
                (n) => n > 0 && portal.requests.some((url) => url.searchParams.get("page") === String(lastPage))
              )
            )
          )
          const [lease] = yield* sql<{
            owner: string
          }>`SELECT lease_owner AS owner FROM integrations WHERE id = ${pairId}`
          const [dead] = yield* sql<{ run_id: string }>`SELECT run_id FROM sync_leases WHERE integration_id = ${pairId}`
          const victim = workers.find((worker) => workerName(worker) === lease!.owner)!
          const survivor = workers.find((worker) => worker !== victim)!
          victim.child.kill("SIGKILL")
          yield* Effect.promise(() => victim.exited)
          const killedAt = Date.now()
          killed = true

          // The fetch wrote nothing but its staging: the pair has nothing of the run.
          assert.strictEqual(yield* stored, 0)
          // No hand on the clock: the dead worker's leases run out, and the survivor takes the pair.
          const finished = sql<{ worker: string }>`
          SELECT worker FROM sync_runs WHERE integration_id = ${pairId} AND outcome = 'succeeded'`
          yield* eventually(
            "another worker finished the pair",
            Effect.orDie(Effect.map(finished, (runs) => runs.length > 0)),
            { attempts: 600, interval: Duration.millis(100) }
          )
          assert.isBelow(Date.now() - killedAt, 60_000, "the pair was synced again within a minute of the kill")
          assert.deepStrictEqual(
            (yield* finished).map((run) => run.worker),
            [workerName(survivor)]
          )
          assert.strictEqual(yield* stored, (lastPage - 1) * crashPageSize + 500)
          // The dead run's lease and staging were swept when the survivor's run started.
          const [left] = yield* sql<{ n: number }>`
            SELECT (SELECT count(*) FROM sync_leases WHERE integration_id = ${pairId})::int
              + (SELECT count(*) FROM sync_staging WHERE run_id = ${dead!.run_id})::int AS n`
          assert.strictEqual(left!.n, 0)
        })
      )
  )

  it.effect("every request answered through the pooler has exactly one audit entry", () =>
    Effect.gen(function* () {
      const sql = yield* SqlClient.SqlClient
      const { apis } = yield* Running
      // Besides the suite's earlier answers, a burst of its own, all at once over every process.
      const { key } = yield* newOrganization("Audit", 44)
      yield* Effect.all(
        Array.from({ length: 60 }, (_, i) => vendorsStatus(apis[i % apis.length]!, key)),
        { concurrency: "unbounded" }
      )
      const ids = [...answered]
      assert.isAtLeast(ids.length, 60)
      const entries = sql<{ request_id: string; n: number }>`
        SELECT request_id, count(*)::int AS n FROM audit_log WHERE request_id IN ${sql.in(ids)} GROUP BY request_id`
      // Entries are written as requests end, which may be after the answer reached the client.
      yield* eventually(
        "an audit entry for every answer",
        Effect.orDie(Effect.map(entries, (rows) => rows.length === ids.length))
      )
      assert.deepStrictEqual(
        (yield* entries).filter((row) => row.n !== 1),
        []
      )
    })
  )
})
