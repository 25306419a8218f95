/**
 * The cost of the shared limits per request, in this process's memory against PostgreSQL, side by
 * side (`node bench/scale/limiter.ts`). A fresh embedded PostgreSQL; two parts, each alternating
 * the two stores round after round so that both share the machine's speed of the minute.
 *
 * - "limits alone": what the key's middleware does for each request, in this process: the key's
 *   rate limit, the organization's, and a place in flight taken and given back
 *   (`RateLimiter`, `InFlight`), from `BENCH_CONCURRENCY` fibers at once for `BENCH_SECONDS`, on one
 *   hot key and on 1,000 keys of 10 organizations, each stored (the shared statement reads its row). Calls/s, latency per call, and CPU per call of
 *   this process and of PostgreSQL.
 * - "API": the app in its `serve` role with `LIMITS_STORE=memory` and `LIMITS_STORE=postgres`,
 *   the default list (`GET /v1/receivables`, 100 of 2,000 receivables) from `BENCH_CONCURRENCY`
 *   kept-alive connections of one key, limits out of reach so that every request is answered
 *   (their statements still run). Requests/s, latency, and CPU per request of the app and of
 *   PostgreSQL. The load generator runs in this process, on the same cores.
 *
 * Options (environment): BENCH_SECONDS (default 10), BENCH_CONCURRENCY (default 16),
 * BENCH_ROUNDS (default 2); BENCH_SMOKE=1 for a run of seconds.
 */
import http from "node:http"
import { Clock, Effect, Layer, Redacted } from "effect"
import { SqlClient } from "effect/sql"
import * as InFlight from "../../adapters/http/api/InFlight.ts"
import * as RateLimiter from "../../adapters/http/pipeline/RateLimiter.ts"
import * as Database from "../../adapters/postgres/Database.ts"
import * as PgInFlightStore from "../../adapters/postgres/PgInFlightStore.ts"
import * as PgRateLimitStore from "../../adapters/postgres/PgRateLimitStore.ts"
import { makeApiKey, secretBytes } from "../../core/access/domain/ApiKey.ts"
import * as MemoryInFlightStore from "../../core/access/memory/InFlightStore.ts"
import * as MemoryRateLimitStore from "../../core/access/memory/RateLimitStore.ts"
import type { ApiKeyId, OrgId } from "../../core/shared/domain/Ids.ts"
import { freePort } from "../../test/support/ports.ts"
import { postgresCpuSeconds, postmasterPid, processCpuSeconds } from "../ProcessCpu.ts"
import { withFreshDatabase } from "../support/FreshDatabase.ts"
import { quantile, seedOrganization, startServer } from "../support/OneOrganization.ts"
import { option, sized } from "../support/Smoke.ts"

const seconds = option("BENCH_SECONDS", 10, 0.5)
const concurrency = option("BENCH_CONCURRENCY", 16, 2)
const rounds = option("BENCH_ROUNDS", 2, 1)
const receivables = sized(2_000, 200)
const key = makeApiKey("pr", new Uint8Array(secretBytes).fill(41))
const log = (line: string) => process.stderr.write(`${line}\n`)

// Out of reach: the cost is measured, not refusals.
const policy = { perSecond: 1_000_000, burst: 1_000_000 }
const caps = { perKey: 10_000, perOrganization: 10_000 }

const stores = {
  memory: Layer.merge(MemoryRateLimitStore.layerOwnState, MemoryInFlightStore.layerOwnState),
  postgres: Layer.merge(PgRateLimitStore.layer, PgInFlightStore.layer)
} as const

// Owners are UUIDs, as the columns of `in_flight_shares` hold them.
const uuid = (n: number) => `00000000-0000-4000-8000-${n.toString().padStart(12, "0")}`
const owners = {
  "one hot key": [{ keyId: uuid(1) as ApiKeyId, orgId: uuid(900_001) as OrgId }],
  "1,000 keys": Array.from({ length: 1_000 }, (_, i) => ({
    keyId: uuid(i) as ApiKeyId,
    orgId: uuid(900_000 + (i % 10)) as OrgId
  }))
}

interface Figures {
  readonly done: number
  readonly perSecond: string
  readonly p50: string
  readonly p99: string
  readonly cpu: string
  readonly postgresCpu: string
}

const figures = (
  timings: ReadonlyArray<number>,
  elapsedSeconds: number,
  cpuSeconds: number,
  postgresSeconds: number
): Figures => ({
  done: timings.length,
  perSecond: (timings.length / elapsedSeconds).toFixed(0),
  p50: quantile(timings, 0.5).toFixed(3),
  p99: quantile(timings, 0.99).toFixed(3),
  cpu: ((cpuSeconds * 1000) / timings.length).toFixed(3),
  postgresCpu: ((postgresSeconds * 1000) / timings.length).toFixed(3)
})

/** The middleware's limit work for `seconds`, from `concurrency` fibers, over the stores given. */
const limitsAlone = (owned: ReadonlyArray<{ keyId: ApiKeyId; orgId: OrgId }>, postmaster: string) =>
  Effect.gen(function* () {
    const limiter = yield* RateLimiter.RateLimiter
    const inFlight = yield* InFlight.InFlight
    const timings: Array<number> = []
    const request = (n: number) =>
      Effect.gen(function* () {
        const owner = owned[n % owned.length]!
        const started = yield* Clock.currentTimeNanos
        yield* limiter.takeKeyAndOrganization(owner.keyId, owner.orgId, policy)
        yield* inFlight.admit(owner, Effect.void, () => Effect.die("refused"))
        timings.push(Number((yield* Clock.currentTimeNanos) - started) / 1e6)
      })
    const cpuBefore = processCpuSeconds(process.pid)
    const postgresBefore = postgresCpuSeconds(postmaster)
    const started = performance.now()
    const until = started + seconds * 1000
    yield* Effect.forEach(
      Array.from({ length: concurrency }, (_, fiber) => fiber),
      (fiber) =>
        Effect.gen(function* () {
          for (let n = fiber; performance.now() < until; n += concurrency) yield* request(n)
        }),
      { concurrency: "unbounded", discard: true }
    )
    return figures(
      timings,
      (performance.now() - started) / 1000,
      processCpuSeconds(process.pid) - cpuBefore,
      postgresCpuSeconds(postmaster) - postgresBefore
    )
  })

/** `concurrency` kept-alive connections asking for the default list for `seconds`. */
const load = (port: number) =>
  new Promise<{ timings: Array<number>; errors: number; elapsed: number }>((resolve) => {
    const agent = new http.Agent({ keepAlive: true, maxSockets: concurrency })
    const timings: Array<number> = []
    let errors = 0
    const started = performance.now()
    const until = started + seconds * 1000
    let running = concurrency
    const next = () => {
      if (performance.now() >= until) {
        running -= 1
        if (running === 0) {
          agent.destroy()
          resolve({ timings, errors, elapsed: (performance.now() - started) / 1000 })
        }
        return
      }
      const sent = performance.now()
      http
        .get(
          { host: "127.0.0.1", port, path: "/v1/receivables", agent, headers: { authorization: `Bearer ${key}` } },
          (response) => {
            response.resume()
            response.on("end", () => {
              if (response.statusCode === 200) timings.push(performance.now() - sent)
              else errors += 1
              next()
            })
          }
        )
        .on("error", () => {
          errors += 1
          next()
        })
    }
    for (let i = 0; i < concurrency; i++) next()
  })

/**
 * The owners' keys and organizations as rows, so that the statement's check of the key (is it
 * revoked?) finds its row, as it does for every request the API admits.
 */
const storeOwners = Effect.gen(function* () {
  const sql = yield* SqlClient.SqlClient
  // The hot key is also one of the 1,000: each stored once.
  const all = [
    ...new Map(
      Object.values(owners)
        .flat()
        .map((owner) => [owner.keyId, owner])
    ).values()
  ]
  const orgs = [...new Set(all.map((owner) => owner.orgId))]
  yield* sql`INSERT INTO organizations (id, name) SELECT unnest(${`{${orgs.join(",")}}`}::uuid[]), 'Limits bench'`
  yield* sql`
    INSERT INTO api_keys (id, org_id, key_hash, display_start)
    SELECT k.id, k.org_id, sha256(convert_to(k.id::text, 'UTF8')), 'pr_live_benc'
    FROM unnest(${`{${all.map((owner) => owner.keyId).join(",")}}`}::uuid[],
      ${`{${all.map((owner) => owner.orgId).join(",")}}`}::uuid[]) AS k (id, org_id)`
})

const program = withFreshDatabase("limiter", (url) =>
  Effect.gen(function* () {
    const postmaster = yield* postmasterPid
    const pool = Database.layerUrl(Redacted.make(url), { maxConnections: 10 })
    yield* Effect.orDie(storeOwners)
    const aloneRows: Array<string> = []
    for (let round = 1; round <= rounds; round++) {
      for (const [pattern, owned] of Object.entries(owners)) {
        for (const [store, layer] of Object.entries(stores)) {
          const limits = Layer.merge(
            Layer.effect(RateLimiter.RateLimiter, RateLimiter.makeOver(policy, policy)),
            Layer.effect(InFlight.InFlight, InFlight.makeOver(caps))
          ).pipe(Layer.provide(layer), Layer.provide(pool))
          const f = yield* limitsAlone(owned, postmaster).pipe(Effect.provide(limits), Effect.orDie)
          const row = `| ${pattern} | ${concurrency} | ${store} | ${f.perSecond} | ${f.p50} | ${f.p99} | ${f.cpu} | ${f.postgresCpu} |`
          log(row)
          aloneRows.push(row)
        }
      }
    }

    yield* seedOrganization({ name: "Limits", receivables, key })
    const apiRows: Array<string> = []
    for (let round = 1; round <= rounds; round++) {
      for (const store of ["memory", "postgres"] as const) {
        const port = yield* Effect.promise(freePort)
        const app = yield* Effect.promise(() => startServer(url, port, { LIMITS_STORE: store }))
        // A first second unmeasured: connections opened, statements planned.
        yield* Effect.promise(() => load(port))
        const appBefore = processCpuSeconds(app.pid!)
        const postgresBefore = postgresCpuSeconds(postmaster)
        const run = yield* Effect.promise(() => load(port))
        const appCpu = processCpuSeconds(app.pid!) - appBefore
        const postgresCpu = postgresCpuSeconds(postmaster) - postgresBefore
        app.kill("SIGTERM")
        yield* Effect.promise(() => new Promise((resolve) => app.once("exit", resolve)))
        if (run.timings.length === 0 || run.errors > 0) {
          return yield* Effect.die(new Error(`LIMITS_STORE=${store}: ${run.errors} errors`))
        }
        const f = figures(run.timings, run.elapsed, appCpu, postgresCpu)
        const row = `| ${concurrency} | ${store} | ${f.perSecond} | ${f.p50} | ${f.p99} | ${f.cpu} | ${f.postgresCpu} |`
        log(row)
        apiRows.push(row)
      }
    }

    process.stdout.write(
      `${[
        "Limits alone (both rate limits and a place in flight, per request):",
        "",
        "| keys | fibers | store | requests/s | p50 ms | p99 ms | this process CPU ms/request | PostgreSQL CPU ms/request |",
        "|---|---|---|---|---|---|---|---|",
        ...aloneRows,
        "",
        `API, GET /v1/receivables (100 of ${receivables}), one key:`,
        "",
        "| connections | LIMITS_STORE | requests/s | p50 ms | p99 ms | app CPU ms/request | PostgreSQL CPU ms/request |",
        "|---|---|---|---|---|---|---|",
        ...apiRows
      ].join("\n")}\n`
    )
  })
)

Effect.runPromise(Effect.scoped(program)).catch((error) => {
  log(String(error))
  process.exit(1)
})
