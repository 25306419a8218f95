/**
 * What API keys need from storage, and nothing more: records keyed by the SHA-256 of the key,
 * listed per organization, revoked once, and a feed announcing
 * revocations so that caches elsewhere can drop a key at once. Implementations hold digests only
 * and know nothing of the key format, hashing or caching: that policy is `core/access/services/ApiKeys`.
 */
import { Context, type DateTime, type Effect, type Option, Schema, type Scope, type Stream } from "effect"
import type { ApiKeyId, OrgId } from "../../shared/domain/Ids.ts"
import type { RateLimitPolicy } from "../../shared/domain/RateLimit.ts"
import type { Permission } from "../domain/ApiKey.ts"

export interface ApiKeyRecord {
  readonly id: ApiKeyId
  readonly orgId: OrgId
  readonly name: string
  /** The key's prefix and first characters, to recognise it; never enough to use it. */
  readonly displayStart: string
  /** What the key may do beyond reading; none for a read-only key. */
  readonly permissions: ReadonlyArray<Permission>
  readonly createdAt: DateTime.Utc
  readonly revokedAt: DateTime.Utc | null
  readonly lastUsedAt: DateTime.Utc | null
}

/**
 * What a lookup by digest answers: enough to accept a key, or to attribute a revoked one, with
 * its organization's own rate limit (null: the service's default), read in the same lookup.
 */
export interface StoredKey {
  readonly id: ApiKeyId
  readonly orgId: OrgId
  readonly revokedAt: DateTime.Utc | null
  readonly orgRateLimit: RateLimitPolicy | null
  readonly permissions: ReadonlyArray<Permission>
}

export interface NewApiKey {
  /** As the operator gave it; an organization that does not exist is `OrganizationNotFound`. */
  readonly orgId: string
  readonly name: string
  /** The SHA-256 of the key; 32 bytes. */
  readonly hash: Uint8Array
  readonly displayStart: string
  /** What the key may do beyond reading; absent or empty: a read-only key. */
  readonly permissions?: ReadonlyArray<Permission> | undefined
  /**
   * Refused with `LiveKeyLimitReached` when the organization already has this many live (not
   * revoked) keys, decided atomically with the insert: of two creations at the limit, one wins.
   * Undefined: no limit.
   */
  readonly maxLive?: number | undefined
}

export class ApiKeyNotFound extends Schema.TaggedError<ApiKeyNotFound>()("ApiKeyNotFound", {
  id: Schema.String
}) {}

export class OrganizationNotFound extends Schema.TaggedError<OrganizationNotFound>()("OrganizationNotFound", {
  id: Schema.String
}) {}

/** The organization already has `limit` live keys: one must be revoked before another is made. */
export class LiveKeyLimitReached extends Schema.TaggedError<LiveKeyLimitReached>()("LiveKeyLimitReached", {
  orgId: Schema.String,
  limit: Schema.Number
}) {}

/**
 * The revocation feed could not be joined or stopped delivering. A subscriber must then assume
 * it missed announcements (whatever it cached may since have been revoked) and subscribe again.
 */
export class RevocationFeedLost extends Schema.TaggedError<RevocationFeedLost>()("RevocationFeedLost", {
  reason: Schema.String
}) {}

export class ApiKeyStore extends Context.Service<
  ApiKeyStore,
  {
    readonly findByHash: (hash: Uint8Array) => Effect.Effect<Option.Option<StoredKey>>
    /** Stores a new key. Two keys never share a digest: a repeated one is a defect. */
    readonly insert: (key: NewApiKey) => Effect.Effect<ApiKeyRecord, OrganizationNotFound | LiveKeyLimitReached>
    /** The organization's keys, revoked ones included, by creation time, then id. */
    readonly listByOrg: (org: string) => Effect.Effect<ReadonlyArray<ApiKeyRecord>, OrganizationNotFound>
    /** Marks the key revoked and announces it; revoking twice keeps the first time. */
    readonly revoke: (id: string) => Effect.Effect<ApiKeyRecord, ApiKeyNotFound>
    /**
     * Marks the organization's key revoked and announces it, if it is not revoked yet: the change
     * filters on the organization itself. Another organization's key, or one already revoked, is
     * `ApiKeyNotFound` and stays as it was.
     */
    readonly revokeActive: (org: OrgId, id: string) => Effect.Effect<ApiKeyRecord, ApiKeyNotFound>
    /** The key with this id, of any organization, revoked or not. */
    readonly find: (id: string) => Effect.Effect<Option.Option<ApiKeyRecord>>
    /**
     * Joins the revocation feed: succeeds once announcements are being received (for as long as
     * the scope stays open), with the ids of keys revoked from then on, by anyone. The stream
     * fails when announcements stop arriving.
     */
    readonly revocations: Effect.Effect<Stream.Stream<string, RevocationFeedLost>, RevocationFeedLost, Scope.Scope>
  }
>()("core/ApiKeyStore") {}
