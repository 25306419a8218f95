/**
 * `ApiKeyStore` over PostgreSQL: the `api_keys` table, looked up by the
 * key's digest. Revocations are announced by the database itself (the `api_key_revoked` trigger
 * of migration 0003), so that a key revoked by any process, or by SQL by hand, reaches every
 * listener. Knows nothing of the key format, hashing or caching (`core/access/services/ApiKeys.ts`).
 */
import { DateTime, Effect, Layer, Option, Stream } from "effect"
import { SqlClient } from "effect/sql"
import type { Permission } from "../../core/access/domain/ApiKey.ts"
import {
  ApiKeyNotFound,
  type ApiKeyRecord,
  ApiKeyStore,
  LiveKeyLimitReached,
  type NewApiKey,
  OrganizationNotFound,
  RevocationFeedLost
} from "../../core/access/ports/ApiKeyStore.ts"
import type { ApiKeyId, OrgId } from "../../core/shared/domain/Ids.ts"
import { DirectClient } from "./Database.ts"
import { isUuid } from "./Uuid.ts"

/** The channel of migration 0003's trigger; its payload is the key's id. */
export const revocationChannel = "api_key_revoked"

interface KeyRow {
  readonly id: string
  readonly org_id: string
  readonly name: string
  readonly display_start: string
  readonly permissions: ReadonlyArray<Permission>
  readonly created_at: Date
  readonly revoked_at: Date | null
  readonly last_used_at: Date | null
}

const toRecord = (row: KeyRow): ApiKeyRecord => ({
  id: row.id as ApiKeyId,
  orgId: row.org_id as OrgId,
  name: row.name,
  displayStart: row.display_start,
  permissions: row.permissions,
  createdAt: DateTime.fromDateUnsafe(row.created_at),
  revokedAt: row.revoked_at === null ? null : DateTime.fromDateUnsafe(row.revoked_at),
  lastUsedAt: row.last_used_at === null ? null : DateTime.fromDateUnsafe(row.last_used_at)
})

// An array literal (`{webhooks}`): the permissions are a closed set of plain words, sorted and
// each once, so that a key's permissions read back as one value whatever order they were given in.
const permissionsLiteral = (key: NewApiKey) => `{${[...new Set(key.permissions ?? [])].sort().join(",")}}`

export const layer = Layer.effect(
  ApiKeyStore,
  Effect.gen(function* () {
    const sql = yield* SqlClient.SqlClient
    // LISTEN lasts a session, which a pooler in transaction mode does not keep: the direct client.
    const direct = yield* DirectClient

    const findKey = (id: string) =>
      isUuid(id)
        ? sql<KeyRow>`SELECT * FROM api_keys WHERE id = ${id}`.pipe(
            Effect.orDie,
            Effect.map((rows) => Option.fromNullishOr(rows[0]))
          )
        : Effect.succeed(Option.none<KeyRow>())

    const requireOrg = Effect.fnUntraced(function* (org: string) {
      const rows = isUuid(org) ? yield* sql`SELECT 1 FROM organizations WHERE id = ${org}`.pipe(Effect.orDie) : []
      if (rows.length === 0) return yield* new OrganizationNotFound({ id: org })
    })

    const findByHash = Effect.fn("PgApiKeyStore.findByHash")(function* (hash: Uint8Array) {
      // The organization's own rate limit comes with the key: one lookup per verification.
      const rows = yield* sql<{
        id: string
        org_id: string
        revoked_at: Date | null
        rate_limit_per_second: number | null
        rate_limit_burst: number | null
        permissions: ReadonlyArray<Permission>
      }>`
        SELECT k.id, k.org_id, k.revoked_at, o.rate_limit_per_second, o.rate_limit_burst, k.permissions
        FROM api_keys k JOIN organizations o ON o.id = k.org_id WHERE k.key_hash = ${hash}`.pipe(Effect.orDie)
      return Option.map(Option.fromNullishOr(rows[0]), (row) => ({
        id: row.id as ApiKeyId,
        orgId: row.org_id as OrgId,
        revokedAt: row.revoked_at === null ? null : DateTime.fromDateUnsafe(row.revoked_at),
        orgRateLimit:
          row.rate_limit_per_second === null || row.rate_limit_burst === null
            ? null
            : { perSecond: row.rate_limit_per_second, burst: row.rate_limit_burst },
        permissions: row.permissions
      }))
    })

    // The organization's row is locked while its live keys are counted and the key is stored, so
    // creations of one organization at its limit take turns and exactly one of them gets the slot.
    // The count is a statement of its own: under READ COMMITTED it then sees the key of the
    // creation that held the lock before (a subquery of the locking statement would not).
    const insert = Effect.fn("PgApiKeyStore.insert")(
      function* (key: NewApiKey) {
        const locked = isUuid(key.orgId)
          ? yield* sql`SELECT 1 FROM organizations WHERE id = ${key.orgId} FOR UPDATE`.pipe(Effect.orDie)
          : []
        if (locked.length === 0) return yield* new OrganizationNotFound({ id: key.orgId })
        if (key.maxLive !== undefined) {
          const counted = yield* sql<{ live: number }>`
            SELECT count(*)::int AS live FROM api_keys WHERE org_id = ${key.orgId} AND revoked_at IS NULL`.pipe(
            Effect.orDie
          )
          if (counted[0]!.live >= key.maxLive) {
            return yield* new LiveKeyLimitReached({ orgId: key.orgId, limit: key.maxLive })
          }
        }
        const [row] = yield* sql<KeyRow>`
          INSERT INTO api_keys (org_id, name, key_hash, display_start, permissions)
          VALUES (${key.orgId}, ${key.name}, ${key.hash}, ${key.displayStart}, ${permissionsLiteral(key)}::text[])
          RETURNING *`.pipe(Effect.orDie)
        return toRecord(row!)
      },
      sql.withTransaction,
      Effect.catchTag("SqlError", Effect.die)
    )

    const listByOrg = Effect.fn("PgApiKeyStore.listByOrg")(function* (org: string) {
      yield* requireOrg(org)
      const rows = yield* sql<KeyRow>`SELECT * FROM api_keys WHERE org_id = ${org} ORDER BY created_at, id`.pipe(
        Effect.orDie
      )
      return rows.map(toRecord)
    })

    const revoke = Effect.fn("PgApiKeyStore.revoke")(function* (id: string) {
      const rows = isUuid(id)
        ? yield* sql<KeyRow>`
            UPDATE api_keys SET revoked_at = coalesce(revoked_at, now()) WHERE id = ${id} RETURNING *`.pipe(
            Effect.orDie
          )
        : []
      if (rows[0] === undefined) return yield* new ApiKeyNotFound({ id })
      return toRecord(rows[0])
    })

    const revokeActive = Effect.fn("PgApiKeyStore.revokeActive")(function* (org: OrgId, id: string) {
      const rows =
        isUuid(org) && isUuid(id)
          ? yield* sql<KeyRow>`
              UPDATE api_keys SET revoked_at = now()
              WHERE org_id = ${org} AND id = ${id} AND revoked_at IS NULL RETURNING *`.pipe(Effect.orDie)
          : []
      if (rows[0] === undefined) return yield* new ApiKeyNotFound({ id })
      return toRecord(rows[0])
    })

    const find = Effect.fn("PgApiKeyStore.find")(function* (id: string) {
      return Option.map(yield* findKey(id), toRecord)
    })

    // LISTEN holds a connection of its own until the subscriber's scope closes; a lost connection
    // fails the notification queue, which ends the feed.
    const lost = (cause: unknown) => new RevocationFeedLost({ reason: String(cause) })
    const revocations = Effect.map(Effect.mapError(direct.listen(revocationChannel), lost), (notifications) =>
      Stream.fromQueue(notifications).pipe(
        Stream.map((notification) => notification.payload),
        Stream.mapError(lost)
      )
    )

    return ApiKeyStore.of({ findByHash, insert, listByOrg, revoke, revokeActive, find, revocations })
  })
)
