/**
 * Fresh databases for the benchmarks: an embedded PostgreSQL in a temporary directory removed at
 * the end, and in it databases created and migrated for one run each (dropped afterwards), so
 * that no benchmark ever truncates the service's tables (append-only ones refuse it). In smoke
 * mode the throw-away cluster skips durability, as the test harness's does.
 */
import { randomBytes } from "node:crypto"
import { chmod, mkdtemp, rm } from "node:fs/promises"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { PgClient } from "@effect/sql-pg"
import { Effect, Redacted, type Scope } from "effect"
import { SqlClient } from "effect/sql"
import * as Embedded from "../../adapters/postgres/embedded/Embedded.ts"
import * as Migrations from "../../adapters/postgres/Migrations.ts"
import { freePort } from "../../test/support/ports.ts"
import { databaseUrl } from "../../test/support/urls.ts"
import { smoke } from "./Smoke.ts"

const smokeSettings = { fsync: "off", synchronous_commit: "off", full_page_writes: "off" }

/** A fresh embedded PostgreSQL for this run; its URL names the `postgres` database. */
export const startCluster = (name: string, settings: Readonly<Record<string, string>> = {}) =>
  Effect.gen(function* () {
    const baseDir = yield* Effect.promise(() => mkdtemp(join(tmpdir(), `receivables-${name}-bench-`)))
    // The server may run as another user (when we are root): let it reach the directory.
    yield* Effect.promise(() => chmod(baseDir, 0o755))
    yield* Effect.addFinalizer(() => Effect.promise(() => rm(baseDir, { recursive: true, force: true })))
    return yield* Embedded.start({
      baseDir: join(baseDir, "postgres"),
      port: yield* Effect.promise(freePort),
      settings: { ...settings, ...(smoke ? smokeSettings : {}) }
    })
  })

/** A database of its own on the cluster of `adminUrl`, migrated; dropped when the scope closes. */
export const migratedDatabase = (adminUrl: string) =>
  Effect.acquireRelease(
    Effect.gen(function* () {
      const name = `bench_${randomBytes(6).toString("hex")}`
      yield* onAdmin(adminUrl, (sql) => sql`CREATE DATABASE ${sql(name)}`)
      const url = databaseUrl(adminUrl, name)
      yield* Migrations.migrate.pipe(Effect.provide(client(url)), Effect.orDie)
      return url
    }),
    (url) =>
      onAdmin(adminUrl, (sql) => sql`DROP DATABASE IF EXISTS ${sql(new URL(url).pathname.slice(1))} WITH (FORCE)`)
  )

const client = (url: string, maxConnections = 2) => PgClient.layer({ url: Redacted.make(url), maxConnections })

const onAdmin = <A, E>(url: string, use: (sql: SqlClient.SqlClient) => Effect.Effect<A, E>) =>
  Effect.flatMap(SqlClient.SqlClient, use).pipe(Effect.provide(client(url, 1)), Effect.orDie)

/**
 * Runs `body` against a fresh, migrated database on a fresh cluster; `body` gets the database's
 * URL for the processes it starts.
 */
export const withFreshDatabase = <A, E>(
  name: string,
  body: (url: string) => Effect.Effect<A, E, SqlClient.SqlClient | Scope.Scope>,
  settings: Readonly<Record<string, string>> = {}
) =>
  Effect.gen(function* () {
    const server = yield* startCluster(name, settings)
    const url = yield* migratedDatabase(server.url)
    return yield* body(url).pipe(Effect.provide(client(url)))
  })
