/**
 * API keys as policy, over the `ApiKeyStore` port: what a key looks like (`domain/ApiKey.ts`), how
 * one is made (192 bits from effect's `SecureRandom`), what is stored of it (the SHA-256 of its
 * UTF-8, from effect's `Digest`, and a short display start; never the key) and what a presented
 * key is: valid, invalid or revoked, a closed set; a key's usage is read through `KeyUsageStore`.
 * Caching is a layer around the port (`VerifiedKeyCache.ts`). Depends on effect and the core alone.
 */
import { Config, Context, Effect, Layer, Option, Redacted, Schema } from "effect"
import { Digest, SecureRandom } from "effect/crypto"
import { ApiKeyId, OrgId } from "../../shared/domain/Ids.ts"
import type { RateLimitPolicy } from "../../shared/domain/RateLimit.ts"
import * as ApiKey from "../domain/ApiKey.ts"
import {
  ApiKeyNotFound,
  type ApiKeyRecord,
  ApiKeyStore,
  type LiveKeyLimitReached,
  type OrganizationNotFound,
  type StoredKey
} from "../ports/ApiKeyStore.ts"
import { type KeyUsageDay, KeyUsageStore } from "../ports/KeyUsageStore.ts"

/** A key with the days it was used, newest first. */
export interface KeyUsage {
  readonly record: ApiKeyRecord
  readonly days: ReadonlyArray<KeyUsageDay>
}

export interface KeyOwner {
  readonly keyId: ApiKeyId
  readonly orgId: OrgId
  /** The organization's own rate limit, as verified with the key; absent: the service's default. */
  readonly orgRateLimit?: RateLimitPolicy | undefined
  /** What the key may do beyond reading; absent: nothing, a read-only key. */
  readonly permissions?: ReadonlyArray<ApiKey.Permission> | undefined
}

export class ApiKeyRejected extends Schema.TaggedError<ApiKeyRejected>()("ApiKeyRejected", {
  reason: Schema.Literals(["invalid", "revoked"]),
  /** Whose key a revoked key was, so that the audit log can trace the use of a leaked key. */
  keyId: Schema.optionalKey(ApiKeyId),
  orgId: Schema.optionalKey(OrgId)
}) {}

/** What a presented key is. An invalid key tells nothing more: it may be anyone's typo. */
export type KeyVerification =
  | { readonly _tag: "Valid"; readonly owner: KeyOwner }
  | { readonly _tag: "Invalid" }
  | { readonly _tag: "Revoked"; readonly owner: KeyOwner }

const invalid: KeyVerification = { _tag: "Invalid" }

/** The verdict on a well-formed key, from what the store holds under its digest. */
export const verificationOf = (stored: Option.Option<StoredKey>): KeyVerification => {
  if (Option.isNone(stored)) return invalid
  const { id: keyId, orgId, revokedAt, orgRateLimit, permissions } = stored.value
  if (revokedAt !== null) return { _tag: "Revoked", owner: { keyId, orgId } }
  return {
    _tag: "Valid",
    owner: {
      keyId,
      orgId,
      ...(orgRateLimit === null ? {} : { orgRateLimit }),
      ...(permissions.length === 0 ? {} : { permissions })
    }
  }
}

/** The refusal of a key that is not valid, carrying a revoked key's owner for the audit log. */
export const rejectionOf = (verification: Exclude<KeyVerification, { readonly _tag: "Valid" }>): ApiKeyRejected =>
  verification._tag === "Revoked"
    ? new ApiKeyRejected({ reason: "revoked", keyId: verification.owner.keyId, orgId: verification.owner.orgId })
    : new ApiKeyRejected({ reason: "invalid" })

const utf8 = new TextEncoder()

/**
 * The stored form of a key: the SHA-256 of its UTF-8 bytes. Persisted, and compared with what
 * PostgreSQL's `sha256(convert_to(key, 'UTF8'))` gives: it must never change, or every key
 * already issued stops working.
 */
export const hashKey = (key: Redacted.Redacted<string>): Effect.Effect<Uint8Array, never, Digest.Digest> =>
  Effect.flatMap(Digest.Digest, (digest) => digest.digest(Digest.sha256, utf8.encode(Redacted.value(key))))

/** The brand of the keys (`<brand>_live_...`), from `KEY_BRAND`; `pr` by default. */
export const brand = Config.schema(ApiKey.Brand, "KEY_BRAND").pipe(Config.withDefault("pr"))

/**
 * The most live keys an organization may have, `MAX_LIVE_KEYS_PER_ORGANIZATION` (default 50):
 * limits are per key, so an organization with many keys would otherwise multiply its share.
 */
export const defaultMaxLiveKeys = 50

export const maxLiveKeys = Config.schema(
  Schema.FiniteFromString.check(Schema.isInt(), Schema.isBetween({ minimum: 1, maximum: 100_000 })),
  "MAX_LIVE_KEYS_PER_ORGANIZATION"
).pipe(Config.withDefault(defaultMaxLiveKeys))

/** Why a key was not created at the limit, for the CLI and the dashboard alike. */
export const liveKeyLimitMessage = (refusal: LiveKeyLimitReached) =>
  `the organization already has ${refusal.limit} live keys, the most it may have (MAX_LIVE_KEYS_PER_ORGANIZATION); revoke one first`

export class ApiKeys extends Context.Service<
  ApiKeys,
  {
    readonly verify: (key: Redacted.Redacted<string>) => Effect.Effect<KeyOwner, ApiKeyRejected>
    /** A new key for the organization, read-only unless given permissions; the only time the key itself is returned. */
    readonly create: (
      org: string,
      name: string,
      permissions?: ReadonlyArray<ApiKey.Permission>
    ) => Effect.Effect<
      { readonly key: Redacted.Redacted<string>; readonly record: ApiKeyRecord },
      OrganizationNotFound | LiveKeyLimitReached
    >
    readonly list: (org: string) => Effect.Effect<ReadonlyArray<ApiKeyRecord>, OrganizationNotFound>
    /** Revokes the key from its very next request on; revoking twice keeps the first time. */
    readonly revoke: (id: string) => Effect.Effect<ApiKeyRecord, ApiKeyNotFound>
    /** Revokes the organization's key if it is not revoked yet; otherwise `ApiKeyNotFound`. */
    readonly revokeActive: (org: OrgId, id: string) => Effect.Effect<ApiKeyRecord, ApiKeyNotFound>
    readonly usage: (id: string) => Effect.Effect<KeyUsage, ApiKeyNotFound>
  }
>()("core/ApiKeys") {
  /** Keys of the given brand, over the stores, digests and randomness provided. */
  static readonly layerWith = (options: { readonly brand: string; readonly maxLiveKeys?: number | undefined }) =>
    Layer.effect(
      ApiKeys,
      Effect.gen(function* () {
        const store = yield* ApiKeyStore
        const usageStore = yield* KeyUsageStore
        const digest = yield* Digest.Digest
        const random = yield* SecureRandom.SecureRandom
        const keyBrand = options.brand
        const hash = (key: Redacted.Redacted<string>) => Effect.provideService(hashKey(key), Digest.Digest, digest)

        const check = Effect.fnUntraced(function* (key: Redacted.Redacted<string>) {
          // A mistyped, truncated or foreign key fails its checksum: refused with no storage work.
          if (!ApiKey.isWellFormedApiKey(keyBrand, Redacted.value(key))) return invalid
          return verificationOf(yield* store.findByHash(yield* hash(key)))
        })

        const verify = Effect.fn("ApiKeys.verify")(function* (key: Redacted.Redacted<string>) {
          const verification = yield* check(key)
          if (verification._tag === "Valid") return verification.owner
          return yield* rejectionOf(verification)
        })

        const create = Effect.fn("ApiKeys.create")(function* (
          org: string,
          name: string,
          permissions: ReadonlyArray<ApiKey.Permission> = []
        ) {
          const key = Redacted.make(ApiKey.makeApiKey(keyBrand, yield* random.randomBytes(ApiKey.secretBytes)))
          const record = yield* store.insert({
            orgId: org,
            name,
            hash: yield* hash(key),
            displayStart: ApiKey.displayStart(keyBrand, Redacted.value(key)),
            permissions,
            maxLive: options.maxLiveKeys ?? defaultMaxLiveKeys
          })
          return { key, record }
        })

        const usage = Effect.fn("ApiKeys.usage")(function* (id: string) {
          const found = yield* store.find(id)
          if (Option.isNone(found)) return yield* new ApiKeyNotFound({ id })
          const record = found.value
          return { record, days: yield* usageStore.days(record.orgId, record.id) }
        })

        return ApiKeys.of({
          verify,
          create,
          list: store.listByOrg,
          revoke: store.revoke,
          revokeActive: store.revokeActive,
          usage
        })
      })
    )

  /** Keys of the brand `KEY_BRAND` (default `pr`), at most `MAX_LIVE_KEYS_PER_ORGANIZATION` live per organization. */
  static readonly layer = Layer.unwrap(
    Effect.map(Config.all({ brand, maxLiveKeys }), (options) => ApiKeys.layerWith(options))
  )
}
