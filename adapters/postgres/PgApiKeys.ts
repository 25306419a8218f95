/**
 * `ApiKeys` over PostgreSQL. A presented key is first checked for its form and checksum (no
 * database work for a malformed or foreign key), then looked up by its SHA-256 digest. Keys are
 * created from 192 bits of the operating system's cryptographic randomness; only the digest and
 * a short display prefix are stored. The brand of the keys is `KEY_BRAND` (default `pr`).
 * Verified keys are cached briefly; revocations reach the cache through PostgreSQL notifications.
 */
import { randomBytes } from "node:crypto"
import { Config, DateTime, Effect, Layer, Option, Redacted, Schema } from "effect"
import { SqlClient } from "effect/sql"
import * as ApiKey from "../../core/domain/ApiKey.ts"
import type { OrgId } from "../../core/domain/Ids.ts"
import {
  ApiKeyNotFound,
  type ApiKeyRecord,
  ApiKeyRejected,
  ApiKeys,
  OrganizationNotFound
} from "../../core/ports/ApiKeys.ts"
import { hashKey } from "../keys/KeyHash.ts"
import * as VerifiedKeyCache from "./VerifiedKeyCache.ts"

interface KeyRow {
  readonly id: string
  readonly org_id: string
  readonly name: string
  readonly display_start: string
  readonly created_at: Date
  readonly revoked_at: Date | null
  readonly last_used_at: Date | null
}

const toRecord = (row: KeyRow): ApiKeyRecord => ({
  id: row.id,
  orgId: row.org_id as OrgId,
  name: row.name,
  displayStart: row.display_start,
  createdAt: DateTime.fromDateUnsafe(row.created_at),
  revokedAt: row.revoked_at === null ? null : DateTime.fromDateUnsafe(row.revoked_at),
  lastUsedAt: row.last_used_at === null ? null : DateTime.fromDateUnsafe(row.last_used_at)
})

const isUuid = Schema.is(Schema.String.check(Schema.isUUID()))

export const brand = Config.schema(ApiKey.Brand, "KEY_BRAND").pipe(Config.withDefault("pr"))

export const layer = Layer.effect(
  ApiKeys,
  Effect.gen(function* () {
    const sql = yield* SqlClient.SqlClient
    const keyBrand = yield* brand
    const cache = yield* VerifiedKeyCache.make

    const findKey = (id: string) =>
      isUuid(id)
        ? sql<KeyRow>`SELECT * FROM api_keys WHERE id = ${id}`.pipe(
            Effect.orDie,
            Effect.map((rows) => Option.fromNullishOr(rows[0]))
          )
        : Effect.succeed(Option.none<KeyRow>())

    const requireOrg = (org: string) =>
      Effect.gen(function* () {
        const rows = isUuid(org) ? yield* sql`SELECT 1 FROM organizations WHERE id = ${org}`.pipe(Effect.orDie) : []
        if (rows.length === 0) return yield* new OrganizationNotFound({ id: org })
      })

    const verify = Effect.fn("PgApiKeys.verify")(function* (key: Redacted.Redacted<string>) {
      if (!ApiKey.isWellFormedApiKey(keyBrand, Redacted.value(key))) {
        return yield* new ApiKeyRejected({ reason: "invalid" })
      }
      const digest = hashKey(key)
      const cacheKey = Buffer.from(digest).toString("hex")
      const cached = cache.get(cacheKey)
      if (cached !== undefined) return cached
      const rows = yield* sql<{ id: string; org_id: string; revoked_at: Date | null }>`
        SELECT id, org_id, revoked_at FROM api_keys WHERE key_hash = ${digest}`.pipe(Effect.orDie)
      const row = Option.fromNullishOr(rows[0])
      if (Option.isNone(row)) return yield* new ApiKeyRejected({ reason: "invalid" })
      if (row.value.revoked_at !== null) {
        return yield* new ApiKeyRejected({ reason: "revoked", keyId: row.value.id, orgId: row.value.org_id })
      }
      const owner = { keyId: row.value.id, orgId: row.value.org_id as OrgId }
      cache.set(cacheKey, owner)
      return owner
    })

    const create = Effect.fn("PgApiKeys.create")(function* (org: string, name: string) {
      yield* requireOrg(org)
      const key = Redacted.make(ApiKey.makeApiKey(keyBrand, randomBytes(ApiKey.secretBytes)))
      const [row] = yield* sql<KeyRow>`
        INSERT INTO api_keys (org_id, name, key_hash, display_start)
        VALUES (${org}, ${name}, ${hashKey(key)}, ${ApiKey.displayStart(keyBrand, Redacted.value(key))})
        RETURNING *`.pipe(Effect.orDie)
      return { key, record: toRecord(row!) }
    })

    const list = Effect.fn("PgApiKeys.list")(function* (org: string) {
      yield* requireOrg(org)
      const rows = yield* sql<KeyRow>`SELECT * FROM api_keys WHERE org_id = ${org} ORDER BY created_at, id`.pipe(
        Effect.orDie
      )
      return rows.map(toRecord)
    })

    const revoke = Effect.fn("PgApiKeys.revoke")(function* (id: string) {
      const rows = isUuid(id)
        ? yield* sql<KeyRow>`
            UPDATE api_keys SET revoked_at = coalesce(revoked_at, now()) WHERE id = ${id} RETURNING *`.pipe(
            Effect.orDie
          )
        : []
      if (rows[0] === undefined) return yield* new ApiKeyNotFound({ id })
      return toRecord(rows[0])
    })

    const usage = Effect.fn("PgApiKeys.usage")(function* (id: string) {
      const found = yield* findKey(id)
      if (Option.isNone(found)) return yield* new ApiKeyNotFound({ id })
      const days = yield* sql<{ day: string; requests_2xx: bigint; requests_4xx: bigint; requests_5xx: bigint }>`
        SELECT to_char(day, 'YYYY-MM-DD') AS day, requests_2xx, requests_4xx, requests_5xx
        FROM api_key_usage WHERE key_id = ${id} AND org_id = ${found.value.org_id} ORDER BY day DESC`.pipe(Effect.orDie)
      return {
        record: toRecord(found.value),
        days: days.map((row) => ({
          day: row.day,
          requests2xx: Number(row.requests_2xx),
          requests4xx: Number(row.requests_4xx),
          requests5xx: Number(row.requests_5xx)
        }))
      }
    })

    return ApiKeys.of({ verify, create, list, revoke, usage })
  })
)
