/**
 * `KeyUsageStore` in memory, over the memory world's `AccessState`: the twin of `api_key_usage` (per
 * organization and key, as its rows are read) and the keys' last use, held to the same contract (`test/contracts/KeyUsageStore.contract.ts`). The
 * memory `AuditLog` counts its entries through `countUsage`, as the PostgreSQL log counts them in
 * its own statement. Depends on `effect` and core only.
 */
import { DateTime, Effect, Layer } from "effect"
import type { ApiKeyId, OrgId } from "../../shared/domain/Ids.ts"
import { idKey, rowKey } from "../../shared/memory/Keys.ts"
import { type KeyRequest, type KeyUsageDay, KeyUsageStore } from "../ports/KeyUsageStore.ts"
import { AccessState, type AccessTables } from "./AccessState.ts"

/** Counts each request on its key's UTC day and moves the key's last use to its latest request. */
export const countUsage = (tables: AccessTables, requests: ReadonlyArray<KeyRequest>): void => {
  for (const request of requests) {
    const keyId = idKey(request.keyId)
    const day = DateTime.formatIso(request.at).slice(0, 10)
    const days = tables.keyUsage.get(rowKey(request.orgId, keyId)) ?? new Map<string, KeyUsageDay>()
    tables.keyUsage.set(rowKey(request.orgId, keyId), days)
    const counted = days.get(day) ?? { day, requests2xx: 0, requests4xx: 0, requests5xx: 0 }
    days.set(day, {
      day,
      requests2xx: counted.requests2xx + (request.status < 400 ? 1 : 0),
      requests4xx: counted.requests4xx + (request.status >= 400 && request.status < 500 ? 1 : 0),
      requests5xx: counted.requests5xx + (request.status >= 500 ? 1 : 0)
    })
    const key = tables.apiKeys.get(keyId)
    if (key !== undefined && (key.lastUsedAt === null || DateTime.isGreaterThan(request.at, key.lastUsedAt))) {
      tables.apiKeys.set(keyId, { ...key, lastUsedAt: request.at })
    }
  }
}

export const layerMemory: Layer.Layer<KeyUsageStore, never, AccessState> = Layer.effect(
  KeyUsageStore,
  Effect.gen(function* () {
    const tables = yield* AccessState
    return KeyUsageStore.of({
      record: (requests) => Effect.sync(() => countUsage(tables, requests)),
      days: (org: OrgId, keyId: ApiKeyId) =>
        Effect.sync(() =>
          [...(tables.keyUsage.get(rowKey(org, keyId))?.values() ?? [])].sort((a, b) => (a.day < b.day ? 1 : -1))
        )
    })
  })
)
