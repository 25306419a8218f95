/**
 * `Readiness` over PostgreSQL: ready once the database answers (within two seconds) and its
 * schema is the one this build expects, or a later one whose every migration past this build's
 * declared, in `schema_compatibility`, that it keeps this build working (a rolling upgrade's
 * newer release migrated first, or a rollback). Not ready while the schema is behind, or once a
 * later migration is not compatible (or declared nothing).
 */
import { Effect, Layer } from "effect"
import { SqlClient } from "effect/sql"
import { Readiness, type ReadinessState } from "../../core/shared/ports/Readiness.ts"
import { compatibilityTable, latestMigrationId, migrationsTable } from "./Migrations.ts"

const ready: ReadinessState = { ready: true }

export const layer = Layer.effect(
  Readiness,
  Effect.gen(function* () {
    const sql = yield* SqlClient.SqlClient
    // Only a schema past this build's can have migrations it does not know, and only there is the
    // compatibility table certain to exist.
    const laterBreaking = sql<{ id: number; oldest: number | null }>`
      SELECT m.migration_id AS id, c.oldest_compatible AS oldest
      FROM ${sql(migrationsTable)} m LEFT JOIN ${sql(compatibilityTable)} c USING (migration_id)
      WHERE m.migration_id > ${latestMigrationId}
        AND (c.oldest_compatible IS NULL OR c.oldest_compatible > ${latestMigrationId})
      ORDER BY m.migration_id
      LIMIT 1`
    const check = Effect.gen(function* () {
      const [row] = yield* sql<{ id: number | null }>`SELECT max(migration_id) AS id FROM ${sql(migrationsTable)}`
      const at = row?.id ?? null
      if (at === latestMigrationId) return ready
      if (at === null || at < latestMigrationId) {
        return {
          ready: false,
          reason: `the database schema is at migration ${at ?? "none"}, this build needs ${latestMigrationId}`
        } as const
      }
      const [breaking] = yield* laterBreaking
      if (breaking === undefined) return ready
      return {
        ready: false,
        reason:
          breaking.oldest === null
            ? `the database schema is at migration ${at}, and migration ${breaking.id} states no compatibility; this build has ${latestMigrationId}`
            : `the database schema is at migration ${at}, and migration ${breaking.id} needs a build of migration ${breaking.oldest} or later; this build has ${latestMigrationId}`
      } as const
    }).pipe(
      Effect.timeout("2 seconds"),
      Effect.catchCause(() => Effect.succeed({ ready: false, reason: "the database does not answer" } as const))
    )
    return Readiness.of({ check })
  })
)
