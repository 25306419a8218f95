/**
 * `Readiness` over PostgreSQL: ready once the database answers (within two seconds) and its
 * schema is at the migration this build expects.
 */
import { Effect, Layer } from "effect"
import { SqlClient } from "effect/sql"
import { Readiness } from "../../core/shared/ports/Readiness.ts"
import { latestMigrationId, migrationsTable } from "./Migrations.ts"

export const layer = Layer.effect(
  Readiness,
  Effect.gen(function* () {
    const sql = yield* SqlClient.SqlClient
    const check = sql<{ id: number | null }>`SELECT max(migration_id) AS id FROM ${sql(migrationsTable)}`.pipe(
      Effect.timeout("2 seconds"),
      Effect.map(([row]) =>
        row?.id === latestMigrationId
          ? ({ ready: true } as const)
          : ({
              ready: false,
              reason: `the database schema is at migration ${row?.id ?? "none"}, this build needs ${latestMigrationId}`
            } as const)
      ),
      Effect.catchCause(() => Effect.succeed({ ready: false, reason: "the database does not answer" } as const))
    )
    return Readiness.of({ check })
  })
)
