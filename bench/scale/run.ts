/**
 * The scale-out benchmark (`npm run bench:scale`): the API benchmark's dataset (`bench/api/`) in a
 * fresh embedded PostgreSQL, then the default list (`GET /v1/receivables`, a random organization's
 * key) under the same load against one `serve` process connected directly, and against 1, 2 and
 * 3 `serve` processes behind Debian's PgBouncer in transaction mode (prepared statements off, the
 * revocations' `LISTEN` and the migrations on the direct address), one after another in one run.
 * The connections are split evenly over the processes; p50 and p99 are over every response of
 * the line. Prints a Markdown table.
 *
 * Options (environment): BENCH_SECONDS per line (default 10), BENCH_WARMUP seconds (3),
 * BENCH_CONNECTIONS in all (64), BENCH_POOLER_CONNECTIONS, the server connections PgBouncer
 * shares among the processes (20). BENCH_SMOKE=1 runs every line in seconds: a tiny dataset, a
 * fixed number of requests, no warm-up.
 */

import { PgClient } from "@effect/sql-pg"
import autocannon from "autocannon"
import { Effect, Redacted } from "effect"
import { SqlClient } from "effect/sql"
import { type AppProcess, healthy, spawnApp } from "../../test/support/AppProcess.ts"
import * as PgBouncer from "../../test/support/PgBouncer.ts"
import { freePort } from "../../test/support/ports.ts"
import { generate, keyOf, organizations } from "../api/dataset.ts"
import { migratedDatabase, startCluster } from "../support/FreshDatabase.ts"
import { option, smoke } from "../support/Smoke.ts"

const seconds = option("BENCH_SECONDS", 10, 1)
const warmup = option("BENCH_WARMUP", 3, 0)
const connections = option("BENCH_CONNECTIONS", 64, 6)
const serverConnections = option("BENCH_POOLER_CONNECTIONS", 20, 4)
// A smoke run sends a fixed number of requests per process rather than loading for seconds.
const smokeRequests = 20

const log = (line: string) => process.stderr.write(`${line}\n`)

// The limits are not what is measured here: they are set out of reach.
const unlimited = {
  RATE_LIMIT_PER_SECOND: "1000000",
  RATE_LIMIT_BURST: "1000000",
  ORG_RATE_LIMIT_PER_SECOND: "1000000",
  ORG_RATE_LIMIT_BURST: "1000000",
  KEY_MAX_IN_FLIGHT: "10000",
  ORG_MAX_IN_FLIGHT: "10000",
  DEMO_SEED: "false",
  DATABASE_POOL_SIZE: "10",
  HOST: "127.0.0.1"
}

interface Line {
  readonly name: string
  readonly processes: number
  readonly env: Readonly<Record<string, string>>
}

const quantile = (sorted: ReadonlyArray<number>, q: number) =>
  sorted.length === 0 ? Number.NaN : sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))]!

/** Loads every process at once, `connections` split evenly; every response's latency is kept. */
const load = async (bases: ReadonlyArray<string>, duration: number) => {
  const latencies: Array<number> = []
  let errors = 0
  const started = Date.now()
  await Promise.all(
    bases.map(
      (base) =>
        new Promise<void>((resolve, reject) => {
          const instance = autocannon(
            {
              url: base,
              connections: Math.max(1, Math.floor(connections / bases.length)),
              // autocannon ends a run on its next sample tick, by default a second away.
              ...(smoke ? { amount: smokeRequests, sampleInt: 50 } : { duration }),
              requests: [
                {
                  setupRequest: (request) => {
                    const org = 1 + Math.floor(Math.random() * organizations)
                    return { ...request, path: "/v1/receivables", headers: { authorization: `Bearer ${keyOf(org)}` } }
                  }
                }
              ]
            },
            (error) => (error ? reject(error) : resolve())
          )
          instance.on("response", (_client, status, _bytes, responseTime) => {
            if (status === 200) latencies.push(responseTime)
            else errors += 1
          })
        })
    )
  )
  const elapsed = (Date.now() - started) / 1000
  latencies.sort((a, b) => a - b)
  return {
    rps: Math.round(latencies.length / elapsed),
    p50: quantile(latencies, 0.5).toFixed(1),
    p99: quantile(latencies, 0.99).toFixed(1),
    errors
  }
}

const startProcesses = (count: number, env: Readonly<Record<string, string>>) =>
  Effect.gen(function* () {
    const apps: Array<AppProcess> = []
    yield* Effect.addFinalizer(() =>
      Effect.promise(() =>
        Promise.all(
          apps.map((app) => {
            app.child.kill("SIGTERM")
            return app.exited
          })
        )
      )
    )
    const bases: Array<string> = []
    for (let i = 0; i < count; i++) {
      const port = yield* Effect.promise(freePort)
      apps.push(spawnApp({ ...env, PORT: String(port) }, "serve"))
      bases.push(`http://127.0.0.1:${port}`)
    }
    yield* Effect.promise(() => Promise.all(bases.map((base, i) => healthy(base, apps[i]!, 60_000))))
    return bases
  })

const measure = (line: Line) =>
  Effect.scoped(
    Effect.gen(function* () {
      const bases = yield* startProcesses(line.processes, line.env)
      if (warmup > 0) yield* Effect.promise(() => load(bases, warmup))
      const result = yield* Effect.promise(() => load(bases, seconds))
      log(`${line.name}: ${result.rps} requests/s, p99 ${result.p99} ms`)
      return { ...line, ...result }
    })
  )

const main = Effect.gen(function* () {
  const server = yield* startCluster("scale", { max_connections: "200" })
  const direct = yield* migratedDatabase(server.url)
  const started = Date.now()
  const client = PgClient.layer({ url: Redacted.make(direct), maxConnections: 2 })
  yield* generate.pipe(Effect.provide(client))
  log(`dataset generated in ${((Date.now() - started) / 1000).toFixed(1)} s`)
  const bouncer = yield* PgBouncer.start(direct, { poolSize: serverConnections })
  const pooled = {
    ...unlimited,
    DATABASE_URL: bouncer.pooled(direct),
    DATABASE_DIRECT_URL: direct,
    DATABASE_PREPARED_STATEMENTS: "false"
  }
  const lines: ReadonlyArray<Line> = [
    { name: "1 process, direct", processes: 1, env: { ...unlimited, DATABASE_URL: direct } },
    { name: "1 process, PgBouncer", processes: 1, env: pooled },
    { name: "2 processes, PgBouncer", processes: 2, env: pooled },
    { name: "3 processes, PgBouncer", processes: 3, env: pooled }
  ]
  const results = []
  for (const line of lines) results.push(yield* measure(line))
  const header = [
    `Default list (\`GET /v1/receivables\`), ${connections} connections split over the processes, ` +
      `${smoke ? `${smokeRequests} requests a process` : `${seconds} s a line after ${warmup} s of warm-up`}; ` +
      `PgBouncer: transaction mode, ${serverConnections} server connections, prepared statements off.`,
    "",
    "| API processes | requests/s | p50 ms | p99 ms | errors |",
    "| --- | ---: | ---: | ---: | ---: |"
  ]
  const rows = results.map((r) => `| ${r.name} | ${r.rps} | ${r.p50} | ${r.p99} | ${r.errors} |`)
  // What partitioning would split, per row: the readiness notes in docs/decisions.md use them.
  const sizes = yield* Effect.gen(function* () {
    const sql = yield* SqlClient.SqlClient
    const measured: Array<{ name: string; rows: number; bytes: number }> = []
    for (const name of ["receivables", "receivable_history", "events", "audit_log"]) {
      // A partitioned table's own size is nothing: its partitions' are summed (a plain table has none).
      const [row] = yield* sql<{ rows: string; bytes: string }>`
        SELECT (SELECT count(*) FROM ${sql(name)})::text AS rows,
          coalesce((SELECT sum(pg_total_relation_size(relid)) FROM pg_partition_tree(${name}::regclass)),
            pg_total_relation_size(${name}::regclass))::text AS bytes`
      measured.push({ name, rows: Number(row!.rows), bytes: Number(row!.bytes) })
    }
    return measured
  }).pipe(Effect.provide(client))
  const sizeRows = sizes.map(
    (t) =>
      `| ${t.name} | ${t.rows} | ${(t.bytes / 2 ** 20).toFixed(0)} | ${t.rows === 0 ? "" : Math.round(t.bytes / t.rows)} |`
  )
  const sizeTable = [
    "",
    "| table | rows | MiB with indexes | bytes a row |",
    "| --- | ---: | ---: | ---: |",
    ...sizeRows
  ]
  process.stdout.write(`${[...header, ...rows, ...sizeTable].join("\n")}\n`)
}).pipe(Effect.scoped)

Effect.runPromise(main).catch((error) => {
  process.stderr.write(`${error instanceof Error ? error.stack : String(error)}\n`)
  process.exit(1)
})
