/**
 * Rolling upgrades: this build (migrations 1..N) stays ready on a schema a later release migrated
 * to N+k while every added migration declares it keeps N working (expand), and is not ready once
 * one does not (contract), or declares nothing. The later releases run through the same migrator,
 * with real migrations of their own.
 */
import { assert, describe, it } from "@effect/vitest"
import { Effect, Redacted } from "effect"
import { SqlClient } from "effect/sql"
import * as Database from "../../../adapters/postgres/Database.ts"
import * as Migrations from "../../../adapters/postgres/Migrations.ts"
import * as PgReadiness from "../../../adapters/postgres/PgReadiness.ts"
import { Readiness } from "../../../core/shared/ports/Readiness.ts"
import * as TestDatabase from "../../support/TestDatabase.ts"

const n = Migrations.latestMigrationId
const named = (id: number, name: string) => `${String(id).padStart(4, "0")}_${name}`

const addNote = Effect.flatMap(SqlClient.SqlClient, (sql) => sql`ALTER TABLE organizations ADD COLUMN note text`)
const dropNote = Effect.flatMap(SqlClient.SqlClient, (sql) => sql`ALTER TABLE organizations DROP COLUMN note`)

/** A later release: this build's migrations and declarations, and its own after them. */
const laterRelease = (added: ReadonlyArray<readonly [name: string, run: typeof addNote, oldest?: number]>) =>
  Migrations.migrateWith(
    { ...Migrations.migrations, ...Object.fromEntries(added.map(([name, run]) => [name, Effect.asVoid(run)])) },
    {
      ...Migrations.oldestCompatible,
      ...Object.fromEntries(added.flatMap(([name, , oldest]) => (oldest === undefined ? [] : [[name, oldest]])))
    }
  )

const thisBuildReady = Effect.flatMap(Readiness, (readiness) => readiness.check).pipe(Effect.provide(PgReadiness.layer))

/** `use` on a migrated database of its own, dropped afterwards. */
const onDatabase = <A, E>(use: Effect.Effect<A, E, SqlClient.SqlClient>) =>
  Effect.gen(function* () {
    const { url } = yield* TestDatabase.createDatabase
    return yield* use.pipe(Effect.provide(Database.layerUrl(Redacted.make(url), { maxConnections: 2 })))
  }).pipe(Effect.scoped)

describe("readiness across a rolling upgrade", () => {
  it.live(
    "ready on a later schema whose migrations keep this build working; not ready once one does not",
    () =>
      onDatabase(
        Effect.gen(function* () {
          assert.deepStrictEqual(yield* thisBuildReady, { ready: true })

          // The next release expands: a column this build does not know of.
          yield* laterRelease([[named(n + 1, "organization_note"), addNote, n]])
          assert.deepStrictEqual(yield* thisBuildReady, { ready: true })
          const sql = yield* SqlClient.SqlClient
          const [org] = yield* sql<{ id: string }>`INSERT INTO organizations (name) VALUES ('Still works') RETURNING id`
          assert.isString(org!.id, "this build's writes still go in")

          // The one after contracts what the release before it used: only builds of N+1 or later.
          yield* laterRelease([
            [named(n + 1, "organization_note"), addNote, n],
            [named(n + 2, "organization_note_dropped"), dropNote, n + 1]
          ])
          assert.deepStrictEqual(yield* thisBuildReady, {
            ready: false,
            reason: `the database schema is at migration ${n + 2}, and migration ${n + 2} needs a build of migration ${n + 1} or later; this build has ${n}`
          })
        })
      ),
    120_000
  )

  it.live(
    "not ready on a later migration that declares no compatibility",
    () =>
      onDatabase(
        Effect.gen(function* () {
          yield* laterRelease([[named(n + 1, "organization_note"), addNote]])
          assert.deepStrictEqual(yield* thisBuildReady, {
            ready: false,
            reason: `the database schema is at migration ${n + 1}, and migration ${n + 1} states no compatibility; this build has ${n}`
          })
        })
      ),
    120_000
  )

  it("every migration declares an oldest compatible schema version, none later than itself", () => {
    for (const [name, oldest] of Object.entries(Migrations.oldestCompatible)) {
      assert.isAtLeast(oldest, 1, name)
      assert.isAtMost(oldest, Migrations.migrationId(name), name)
    }
    assert.deepStrictEqual(Object.keys(Migrations.oldestCompatible), Object.keys(Migrations.migrations))
  })
})
