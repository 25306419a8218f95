/** `Organizations` over PostgreSQL: rows of the `organizations` table, nothing more. */
import { DateTime, Effect, Layer, Option } from "effect"
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
    const find = Effect.fn("PgOrganizations.find")(function* (id: OrgId) {
      const rows = yield* sql<OrgRow>`SELECT * FROM organizations WHERE id = ${id}`.pipe(Effect.orDie)
      return Option.map(Option.fromNullishOr(rows[0]), toOrganization)
    })
    return Organizations.of({ create, list, find })
  })
)
