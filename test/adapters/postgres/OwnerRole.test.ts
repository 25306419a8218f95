/**
 * The role the operators' page asks for: a login role that owns its database and nothing more (no
 * superuser) applies every migration, vacuums after them, and reads readiness.
 */
import { randomBytes } from "node:crypto"
import { PgClient } from "@effect/sql-pg"
import { assert, describe, it } from "@effect/vitest"
import { Effect, Redacted } from "effect"
import { SqlClient } from "effect/sql"
import { inject } from "vitest"
import * as Migrations from "../../../adapters/postgres/Migrations.ts"
import * as PgReadiness from "../../../adapters/postgres/PgReadiness.ts"
import { Readiness } from "../../../core/shared/ports/Readiness.ts"
import { databaseUrl } from "../../support/urls.ts"

const asAdmin = <A, E>(use: Effect.Effect<A, E, SqlClient.SqlClient>) =>
  use.pipe(Effect.provide(PgClient.layer({ url: Redacted.make(inject("adminDatabaseUrl")!), maxConnections: 1 })))

describe("the database role", () => {
  it.live(
    "an owner without superuser migrates an empty database and is ready",
    () =>
      Effect.gen(function* () {
        const name = `receivables_owner_${randomBytes(6).toString("hex")}`
        const password = randomBytes(12).toString("hex")
        yield* Effect.acquireRelease(
          asAdmin(
            Effect.gen(function* () {
              const sql = yield* SqlClient.SqlClient
              yield* sql.unsafe(`CREATE ROLE ${name} LOGIN NOSUPERUSER NOCREATEDB NOCREATEROLE PASSWORD '${password}'`)
              yield* sql.unsafe(`CREATE DATABASE ${name} OWNER ${name}`)
            })
          ),
          () =>
            asAdmin(
              Effect.gen(function* () {
                const sql = yield* SqlClient.SqlClient
                yield* sql.unsafe(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`)
                yield* sql.unsafe(`DROP ROLE IF EXISTS ${name}`)
              })
            ).pipe(Effect.orDie)
        )
        const url = new URL(databaseUrl(inject("adminDatabaseUrl")!, name))
        url.username = name
        url.password = password
        const state = yield* Effect.gen(function* () {
          const sql = yield* SqlClient.SqlClient
          const [role] = yield* sql<{
            super: boolean
          }>`SELECT rolsuper AS super FROM pg_roles WHERE rolname = current_user`
          assert.isFalse(role!.super)
          const applied = yield* Migrations.migrate
          assert.strictEqual(applied.length, Object.keys(Migrations.migrations).length)
          return yield* Effect.flatMap(Readiness, (readiness) => readiness.check).pipe(
            Effect.provide(PgReadiness.layer)
          )
        }).pipe(Effect.provide(PgClient.layer({ url: Redacted.make(url.toString()), maxConnections: 2 })))
        assert.deepStrictEqual(state, { ready: true })
      }).pipe(Effect.scoped),
    120_000
  )
})
