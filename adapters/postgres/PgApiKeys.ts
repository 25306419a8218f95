/**
 * `ApiKeys` over PostgreSQL: a key is looked up by its SHA-256 digest (unique index), so the key
 * is never compared or stored in clear. A revoked key is refused on the very next request.
 */
import { Effect, Layer, Option, type Redacted } from "effect"
import { SqlClient } from "effect/sql"
import type { OrgId } from "../../core/domain/Ids.ts"
import { ApiKeyRejected, ApiKeys } from "../../core/ports/ApiKeys.ts"
import { hashKey } from "../keys/KeyHash.ts"

interface KeyRow {
  readonly id: string
  readonly org_id: string
  readonly revoked_at: Date | null
}

export const layer = Layer.effect(
  ApiKeys,
  Effect.gen(function* () {
    const sql = yield* SqlClient.SqlClient

    const verify = Effect.fn("PgApiKeys.verify")(function* (key: Redacted.Redacted<string>) {
      const rows =
        yield* sql<KeyRow>`SELECT id, org_id, revoked_at FROM api_keys WHERE key_hash = ${hashKey(key)}`.pipe(
          Effect.orDie
        )
      const row = Option.fromNullishOr(rows[0])
      if (Option.isNone(row)) return yield* new ApiKeyRejected({ reason: "invalid" })
      if (row.value.revoked_at !== null) return yield* new ApiKeyRejected({ reason: "revoked" })
      return { keyId: row.value.id, orgId: row.value.org_id as OrgId }
    })

    return ApiKeys.of({ verify })
  })
)
