/**
 * Migration 0015 on a database that ran 0014 before it: a second factor that the old rule had
 * locked for good (20 wrong codes in a row) is locked for 15 minutes from the migration instead,
 * as its first lock; any other factor keeps its count and is not locked.
 */
import { assert, it } from "@effect/vitest"
import { Effect, Redacted } from "effect"
import { Migrator, SqlClient } from "effect/sql"
import * as Database from "../../../adapters/postgres/Database.ts"
import * as Migrations from "../../../adapters/postgres/Migrations.ts"
import * as TestDatabase from "../../support/TestDatabase.ts"

const secret = "JBSWY3DPEHPK3PXPJBSWY3DPEHPK3PXP"

it.effect("a factor locked for good before 0015 is locked for 15 minutes after it; others are left as they were", () =>
  Effect.gen(function* () {
    const { url } = yield* TestDatabase.createEmptyDatabase
    const connected = Effect.provide(Database.layerUrl(Redacted.make(url), { maxConnections: 1 }))
    const before = Object.fromEntries(
      Object.entries(Migrations.migrations).filter(([name]) => Migrations.migrationId(name) < 15)
    )
    const rows = yield* Effect.gen(function* () {
      const sql = yield* SqlClient.SqlClient
      yield* Migrator.make({})({ loader: Migrator.fromRecord(before), table: Migrations.migrationsTable })
      const [org] = yield* sql<{ id: string }>`INSERT INTO organizations (name) VALUES ('Org') RETURNING id`
      yield* sql`
        INSERT INTO dashboard_users (org_id, email, role, password_hash, totp_secret, totp_last_step, totp_wrong_codes)
        VALUES (${org!.id}, 'locked@example.com', 'member', 'hash', ${secret}, 1, 20),
          (${org!.id}, 'typos@example.com', 'member', 'hash', ${secret}, 1, 3)`
      yield* Migrations.migrate
      return yield* sql<{
        email: string
        totp_wrong_codes: number
        totp_locks: number
        minutes_locked: number | null
      }>`
        SELECT email, totp_wrong_codes, totp_locks,
          round(extract(epoch FROM totp_locked_until - now()) / 60)::int AS minutes_locked
        FROM dashboard_users ORDER BY email`
    }).pipe(connected)
    assert.deepStrictEqual(
      rows.map((row) => [row.email, row.totp_wrong_codes, row.totp_locks, row.minutes_locked]),
      [
        ["locked@example.com", 0, 1, 15],
        ["typos@example.com", 3, 0, null]
      ]
    )
  }).pipe(Effect.scoped)
)
