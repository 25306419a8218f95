/**
 * A database of the test file's own, cloned from the run's migrated template and dropped when the
 * layer closes. Provides `SqlClient` and `PgClient` like the app's database layer.
 */
import { randomBytes } from "node:crypto"
import { PgClient } from "@effect/sql-pg"
import { Context, Effect, Layer, Redacted } from "effect"
import { SqlClient } from "effect/sql"
import { inject } from "vitest"
import * as Database from "../../adapters/postgres/Database.ts"
import { databaseUrl } from "./urls.ts"

/** A value the database's global setup provides; a file run without it fails here, saying why. */
const provided = (name: "adminDatabaseUrl" | "templateDatabase") => {
  const value = inject(name)
  if (value === undefined) {
    throw new Error(
      "this test file uses the test database but runs in the project without one: " +
        "the top of vitest.config.ts says how a file is put in the database project"
    )
  }
  return value
}

const adminUrl = () => provided("adminDatabaseUrl")

const withAdmin = <A, E>(use: (sql: SqlClient.SqlClient) => Effect.Effect<A, E>) =>
  Effect.flatMap(SqlClient.SqlClient, use).pipe(
    Effect.provide(PgClient.layer({ url: Redacted.make(adminUrl()), maxConnections: 1 })),
    Effect.orDie
  )

const create = (template: () => string) =>
  Effect.acquireRelease(
    Effect.gen(function* () {
      const name = `receivables_test_${randomBytes(6).toString("hex")}`
      yield* withAdmin((sql) => sql`CREATE DATABASE ${sql(name)} TEMPLATE ${sql(template())}`)
      return { name, url: databaseUrl(adminUrl(), name) }
    }),
    ({ name }) => withAdmin((sql) => sql`DROP DATABASE IF EXISTS ${sql(name)} WITH (FORCE)`)
  )

/** Creates a fresh migrated database; returns its URL. Dropped when the scope closes. */
export const createDatabase = create(() => provided("templateDatabase"))

/** Creates a database without any migration applied, for tests of the migrations themselves. */
export const createEmptyDatabase = create(() => "template1")

/** The URL of the test file's database, for processes that connect on their own (CLI, app). */
export class TestDatabaseUrl extends Context.Service<TestDatabaseUrl, string>()("test/TestDatabaseUrl") {}

export const layer = Layer.unwrap(
  Effect.map(createDatabase, ({ url }) =>
    Layer.merge(Database.layerUrl(Redacted.make(url), { maxConnections: 4 }), Layer.succeed(TestDatabaseUrl, url))
  )
)
