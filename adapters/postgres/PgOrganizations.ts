/**
 * `Organizations` over PostgreSQL: rows of the `organizations` table, nothing more. An
 * organization's own rate limit is both columns or neither (migration 0013's check).
 */
import { DateTime, Effect, Layer, Option } from "effect"
import { SqlClient } from "effect/sql"
import type { OrgId } from "../../core/shared/domain/Ids.ts"
import type { RateLimitPolicy } from "../../core/shared/domain/RateLimit.ts"
import { type Organization, Organizations } from "../../core/shared/ports/Organizations.ts"

interface OrgRow {
  readonly id: string
  readonly name: string
  readonly created_at: Date
  readonly rate_limit_per_second: number | null
  readonly rate_limit_burst: number | null
}

const toOrganization = (row: OrgRow): Organization => ({
  id: row.id as OrgId,
  name: row.name,
  createdAt: DateTime.fromDateUnsafe(row.created_at),
  rateLimit:
    row.rate_limit_per_second === null || row.rate_limit_burst === null
      ? null
      : { perSecond: row.rate_limit_per_second, burst: row.rate_limit_burst }
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
    const setRateLimit = Effect.fn("PgOrganizations.setRateLimit")(function* (
      id: OrgId,
      limit: RateLimitPolicy | null
    ) {
      const rows = yield* sql<OrgRow>`
        UPDATE organizations SET rate_limit_per_second = ${limit?.perSecond ?? null},
          rate_limit_burst = ${limit?.burst ?? null}
        WHERE id = ${id} RETURNING *`.pipe(Effect.orDie)
      return Option.map(Option.fromNullishOr(rows[0]), toOrganization)
    })
    return Organizations.of({ create, list, find, setRateLimit })
  })
)
