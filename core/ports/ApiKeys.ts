/**
 * API keys: verifying a presented key, and their lifecycle for operators (create, list, revoke,
 * usage). Implementations store and compare SHA-256 digests only; a key exists in clear only in
 * the answer to `create` and in the requests that present it.
 */
import { Context, type DateTime, type Effect, type Redacted, Schema } from "effect"
import type { OrgId } from "../domain/Ids.ts"

export interface KeyOwner {
  readonly keyId: string
  readonly orgId: OrgId
}

export interface ApiKeyRecord {
  readonly id: string
  readonly orgId: OrgId
  readonly name: string
  /** The key's prefix and first characters, to recognise it; never enough to use it. */
  readonly displayStart: string
  readonly createdAt: DateTime.Utc
  readonly revokedAt: DateTime.Utc | null
  readonly lastUsedAt: DateTime.Utc | null
}

export interface KeyUsageDay {
  /** `YYYY-MM-DD`, UTC. */
  readonly day: string
  readonly requests2xx: number
  readonly requests4xx: number
  readonly requests5xx: number
}

export class ApiKeyRejected extends Schema.TaggedError<ApiKeyRejected>()("ApiKeyRejected", {
  reason: Schema.Literals(["invalid", "revoked"]),
  /** Whose key a revoked key was, so that the audit log can trace the use of a leaked key. */
  keyId: Schema.optionalKey(Schema.String),
  orgId: Schema.optionalKey(Schema.String)
}) {}

export class ApiKeyNotFound extends Schema.TaggedError<ApiKeyNotFound>()("ApiKeyNotFound", {
  id: Schema.String
}) {}

export class OrganizationNotFound extends Schema.TaggedError<OrganizationNotFound>()("OrganizationNotFound", {
  id: Schema.String
}) {}

export class ApiKeys extends Context.Service<
  ApiKeys,
  {
    readonly verify: (key: Redacted.Redacted<string>) => Effect.Effect<KeyOwner, ApiKeyRejected>
    /** A new key for the organization; the only time the key itself is returned. */
    readonly create: (
      org: string,
      name: string
    ) => Effect.Effect<{ readonly key: Redacted.Redacted<string>; readonly record: ApiKeyRecord }, OrganizationNotFound>
    readonly list: (org: string) => Effect.Effect<ReadonlyArray<ApiKeyRecord>, OrganizationNotFound>
    /** Revokes the key from its very next request on; revoking twice keeps the first time. */
    readonly revoke: (id: string) => Effect.Effect<ApiKeyRecord, ApiKeyNotFound>
    readonly usage: (
      id: string
    ) => Effect.Effect<{ readonly record: ApiKeyRecord; readonly days: ReadonlyArray<KeyUsageDay> }, ApiKeyNotFound>
  }
>()("core/ApiKeys") {}
