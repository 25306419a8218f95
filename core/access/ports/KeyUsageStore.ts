/**
 * What per-key usage needs from storage: answered requests made with a key, counted per key and
 * UTC day by how they were answered (3xx with 2xx, as "not refused"), with each key's last use
 * (`ApiKeyRecord.lastUsedAt`); and a key's days read back. Usage is recorded and read through
 * this one port. Both `AuditLog` stores count an entry's usage as they store it (in the same
 * statement, for PostgreSQL), so whoever records an entry in the audit log does not record it
 * here again. Depends on `effect` and the domain.
 */
import { Context, type DateTime, type Effect } from "effect"
import type { ApiKeyId, OrgId } from "../../shared/domain/Ids.ts"

/** A request answered under a key, as usage counts it. */
export interface KeyRequest {
  readonly at: DateTime.Utc
  readonly keyId: ApiKeyId
  readonly orgId: OrgId
  readonly status: number
}

export interface KeyUsageDay {
  /** `YYYY-MM-DD`, UTC. */
  readonly day: string
  /** Answered below 400. */
  readonly requests2xx: number
  readonly requests4xx: number
  readonly requests5xx: number
}

export class KeyUsageStore extends Context.Service<
  KeyUsageStore,
  {
    /** Counts the requests on their keys' days, and moves each key's last use to its latest request. */
    readonly record: (requests: ReadonlyArray<KeyRequest>) => Effect.Effect<void>
    /** The key's days with requests, newest first; none for another organization's key or an unknown one. */
    readonly days: (org: OrgId, keyId: ApiKeyId) => Effect.Effect<ReadonlyArray<KeyUsageDay>>
  }
>()("core/KeyUsageStore") {}
