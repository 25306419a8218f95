/** `Organizations` over PostgreSQL. */
import { DateTime, Effect, Layer } from "effect"
import { SqlClient } from "effect/sql"
import type { OrgId } from "../../core/domain/Ids.ts"
import { type Organization, Organizations } from "../../core/ports/Organizations.ts"

interface OrgRow {
  readonly id: string
  readonly name: string
  readonly created_at: Date
}

const toOrganization = (row: OrgRow): Organization => ({
  id: row.id as OrgId,
  name: row.name,
  createdAt: DateTime.fromDateUnsafe(row.created_at)
})

export const layer = Layer.effect(
  Organizations,
  Effect.gen(function* () {
    const sql = yield* SqlClient.SqlClient
    const create = Effect.fn("PgOrganizations.create")(function* (name: string) {
      const [row] = yield* sql<OrgRow>`INSERT INTO organizations (name) VALUES (${name}) RETURNING *`.pipe(Effect.orDie)
      return toOrganization(row!)
    })
    const list = sql<OrgRow>`SELECT * FROM organizations ORDER BY name, id`.pipe(
      Effect.orDie,
      Effect.map((rows) => rows.map(toOrganization)),
      Effect.withSpan("PgOrganizations.list")
    )
    return Organizations.of({ create, list })
  })
)
