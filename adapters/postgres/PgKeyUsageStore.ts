/**
 * `KeyUsageStore` over PostgreSQL: `api_key_usage` (per key and UTC day, by how requests were
 * answered) and `api_keys.last_used_at`. The counting is one pair of data-modifying CTEs over a
 * CTE named `entries`, shared with `PgAuditLog`, which counts a batch's usage in the statement
 * that stores its entries, so a committed entry is always counted and never twice.
 */
import { DateTime, Effect, Layer } from "effect"
import { SqlClient } from "effect/sql"
import { type KeyRequest, KeyUsageStore } from "../../core/access/ports/KeyUsageStore.ts"
import type { ApiKeyId, OrgId } from "../../core/shared/domain/Ids.ts"

/**
 * `counted` and `used`: the usage of the rows of `entries` (`at`, `key_id`, `org_id`, `status`)
 * whose key is set, for a `WITH` list. PostgreSQL runs a data-modifying CTE whether or not the
 * statement reads it.
 */
export const countUsage = (sql: SqlClient.SqlClient) => sql`
  counted AS (
    INSERT INTO api_key_usage AS u (key_id, org_id, day, requests_2xx, requests_4xx, requests_5xx)
    SELECT key_id, org_id, (at AT TIME ZONE 'UTC')::date,
      count(*) FILTER (WHERE status < 400), count(*) FILTER (WHERE status BETWEEN 400 AND 499),
      count(*) FILTER (WHERE status >= 500)
    FROM entries WHERE key_id IS NOT NULL GROUP BY 1, 2, 3
    ON CONFLICT (key_id, day) DO UPDATE SET
      requests_2xx = u.requests_2xx + excluded.requests_2xx,
      requests_4xx = u.requests_4xx + excluded.requests_4xx,
      requests_5xx = u.requests_5xx + excluded.requests_5xx
  ),
  used AS (
    UPDATE api_keys k SET last_used_at = greatest(k.last_used_at, latest.at)
    FROM (SELECT key_id, max(at) AS at FROM entries WHERE key_id IS NOT NULL GROUP BY key_id) latest
    WHERE k.id = latest.key_id
  )`

const toJson = (request: KeyRequest) => ({
  at: DateTime.formatIso(request.at),
  key_id: request.keyId,
  org_id: request.orgId,
  status: request.status
})

export const layer = Layer.effect(
  KeyUsageStore,
  Effect.gen(function* () {
    const sql = yield* SqlClient.SqlClient

    const record = Effect.fn("PgKeyUsageStore.record")(function* (requests: ReadonlyArray<KeyRequest>) {
      if (requests.length === 0) return
      yield* sql`
        WITH entries AS (
          SELECT * FROM json_to_recordset(${JSON.stringify(requests.map(toJson))}::json)
            AS e(at timestamptz, key_id uuid, org_id uuid, status smallint)
        ),
        ${countUsage(sql)}
        SELECT 1`.pipe(Effect.orDie)
    })

    const days = Effect.fn("PgKeyUsageStore.days")(function* (org: OrgId, keyId: ApiKeyId) {
      const rows = yield* sql<{ day: string; requests_2xx: bigint; requests_4xx: bigint; requests_5xx: bigint }>`
        SELECT to_char(day, 'YYYY-MM-DD') AS day, requests_2xx, requests_4xx, requests_5xx
        FROM api_key_usage WHERE org_id = ${org} AND key_id = ${keyId} ORDER BY day DESC`.pipe(Effect.orDie)
      return rows.map((row) => ({
        day: row.day,
        requests2xx: Number(row.requests_2xx),
        requests4xx: Number(row.requests_4xx),
        requests5xx: Number(row.requests_5xx)
      }))
    })

    return KeyUsageStore.of({ record, days })
  })
)
