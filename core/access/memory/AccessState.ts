/**
 * The access context's tables in the memory world: API keys and their usage, the request audit
 * log, rate limits and requests in flight, as the PostgreSQL schema keeps them. Revoked keys are
 * announced to every subscriber, as the database's trigger does. Depends on `effect` and core only.
 */
import { Context, Effect, Layer, PubSub } from "effect"
import type { ShareLease } from "../domain/InFlightShares.ts"
import type { ApiKeyRecord } from "../ports/ApiKeyStore.ts"
import type { StoredAuditEntry } from "../ports/AuditLog.ts"
import type { KeyUsageDay } from "../ports/KeyUsageStore.ts"

export interface AccessTables {
  readonly apiKeys: Map<string, ApiKeyRecord>
  /** Key ids by the hex of their digest. */
  readonly apiKeyDigests: Map<string, string>
  /** Revoked keys' ids, announced to every subscriber as the database's trigger does. */
  readonly revocations: PubSub.PubSub<string>
  /** By `rowKey(org, key)`, then by UTC day (`YYYY-MM-DD`), as `api_key_usage` is read. */
  readonly keyUsage: Map<string, Map<string, KeyUsageDay>>
  readonly auditLog: Array<StoredAuditEntry>
  /** Rate limits' TATs in epoch milliseconds, by the limit's name, as `rate_limits` keeps them. */
  readonly rateLimits: Map<string, number>
  /** Requests in flight per key and per organization, in this process alone. */
  readonly inFlightByKey: Map<string, number>
  readonly inFlightByOrganization: Map<string, number>
  /** Processes' leased shares of the budgets in flight, as `in_flight_shares` keeps them. */
  readonly inFlightShares: Array<ShareLease>
}

export class AccessState extends Context.Service<AccessState, AccessTables>()("core/access/memory/AccessState") {
  /** A fresh, empty state each time the layer is built. */
  static readonly layer: Layer.Layer<AccessState> = Layer.effect(
    AccessState,
    Effect.map(PubSub.unbounded<string>(), (revocations) =>
      AccessState.of({
        apiKeys: new Map(),
        apiKeyDigests: new Map(),
        revocations,
        keyUsage: new Map(),
        auditLog: [],
        rateLimits: new Map(),
        inFlightByKey: new Map(),
        inFlightByOrganization: new Map(),
        inFlightShares: []
      })
    )
  )
}
