/**
 * The floors `bench/sync` measures a sync against, each a `COPY` on the sync's own database
 * server: the fair floor (the rows a first sync wrote, into the real schema) and the bare floor
 * (the receivables alone, into a table with nothing on it). Logs to stderr as the benchmark does.
 */
import { PgClient } from "@effect/sql-pg"
import { Effect, Redacted } from "effect"
import { SqlClient } from "effect/sql"
import { migratedDatabase } from "../support/FreshDatabase.ts"

const log = (line: string) => process.stderr.write(`${line}\n`)

// A table's rows in a file of the server's data directory (removed with the cluster), and back.
const fileOf = (sql: SqlClient.SqlClient, table: string) =>
  Effect.map(sql<{ dir: string }>`SELECT current_setting('data_directory') AS dir`, ([row]) =>
    sql.literal(`'${row!.dir}/copy-floor-${table}.csv'`)
  )
const copyOut = (table: string) =>
  Effect.gen(function* () {
    const sql = yield* SqlClient.SqlClient
    yield* sql`COPY (SELECT * FROM ${sql(table)}) TO ${yield* fileOf(sql, table)} WITH (FORMAT csv)`
  })
const copyIn = (table: string, into = table) =>
  Effect.gen(function* () {
    const sql = yield* SqlClient.SqlClient
    yield* sql`COPY ${sql(into)} FROM ${yield* fileOf(sql, table)} WITH (FORMAT csv)`
  })

/**
 * The bare floor: the receivables, timed as a `COPY` into a table with no index, constraint or
 * trigger, the fastest any load of them can be.
 */
export const bareFloor = Effect.gen(function* () {
  const sql = yield* SqlClient.SqlClient
  yield* sql`DROP TABLE IF EXISTS copy_floor`
  yield* sql`CREATE TABLE copy_floor (LIKE receivables)`
  yield* copyOut("receivables")
  const started = performance.now()
  yield* copyIn("receivables", "copy_floor")
  const copied = (performance.now() - started) / 1000
  const [row] = yield* sql<{ n: bigint }>`SELECT count(*) AS n FROM copy_floor`
  yield* sql`DROP TABLE copy_floor`
  return { seconds: copied, rows: Number(row!.n) }
})

// The tables a pair's rows hang from, and those a sync writes rows to (history only on a resync).
// Where the schema derives the events' batches from the runs' records by a trigger, copying the
// runs writes them, and they are not copied again.
const parents = ["organizations", "vendors", "debtors", "integrations", "event_counters"]
const written = ["receivables", "receivable_history", "events", "sync_runs", "event_batches"]

/**
 * The fair floor of the first sync: the rows it wrote, timed as a `COPY` of each table into a
 * fresh database of the same schema (every index, constraint and trigger), their parents copied
 * and analyzed first, untimed. To be taken right after the first sync, from its database.
 */
export const fairFloor = (adminUrl: string) =>
  Effect.gen(function* () {
    const sql = yield* SqlClient.SqlClient
    const present = (yield* sql<{ name: string }>`
      SELECT t AS name FROM unnest(${[...parents, ...written]}::text[]) t WHERE to_regclass(t) IS NOT NULL`).map(
      (row) => row.name
    )
    for (const table of present) yield* copyOut(table)
    const [row] = yield* sql<{ n: bigint }>`SELECT count(*) AS n FROM receivables`
    return yield* Effect.gen(function* () {
      for (const table of parents.filter((t) => present.includes(t))) yield* copyIn(table)
      // As any loader would: with the parents' statistics, a reference check reads by index.
      yield* Effect.flatMap(SqlClient.SqlClient, (floorSql) => floorSql`ANALYZE`)
      let seconds = 0
      for (const table of written.filter((t) => present.includes(t))) {
        const floorSql = yield* SqlClient.SqlClient
        const [derived] = yield* floorSql<{ rows: boolean }>`SELECT EXISTS (SELECT FROM ${floorSql(table)}) AS rows`
        if (derived!.rows) continue
        const started = performance.now()
        yield* copyIn(table)
        const took = (performance.now() - started) / 1000
        log(`  fair floor, ${table}: ${took.toFixed(2)} s`)
        seconds += took
      }
      return { seconds, rows: Number(row!.n) }
    }).pipe(
      Effect.provide(PgClient.layer({ url: Redacted.make(yield* migratedDatabase(adminUrl)), maxConnections: 1 }))
    )
  }).pipe(Effect.scoped)
