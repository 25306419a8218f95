/**
 * `ShownOnceStore` in memory, for embedders and fast tests; it passes the same contract as the
 * PostgreSQL store (`test/contracts/ShownOnceStore.contract.ts`). Depends on effect and the core.
 */
import { DateTime, Effect, Layer, Option } from "effect"
import { Hex } from "effect/encoding"
import type { OrgId } from "../../shared/domain/Ids.ts"
import { type HeldSecret, ShownOnceStore } from "../ports/ShownOnceStore.ts"
import { AccountsState } from "./AccountsState.ts"

export const layerMemory: Layer.Layer<ShownOnceStore, never, AccountsState> = Layer.effect(
  ShownOnceStore,
  Effect.gen(function* () {
    const { shownOnce } = yield* AccountsState
    const dropExpired = (now: DateTime.Utc) => {
      for (const [digest, held] of shownOnce) {
        if (!DateTime.isLessThan(now, held.expiresAt)) shownOnce.delete(digest)
      }
    }

    const hold = (held: HeldSecret, now: DateTime.Utc) =>
      Effect.sync(() => {
        dropExpired(now)
        shownOnce.set(Hex.encode(held.handleHash), held)
      })

    const take = (handleHash: Uint8Array, kind: string, orgId: OrgId, now: DateTime.Utc) =>
      Effect.sync(() => {
        const digest = Hex.encode(handleHash)
        const held = shownOnce.get(digest)
        dropExpired(now)
        if (held === undefined || held.kind !== kind || held.orgId.toLowerCase() !== orgId.toLowerCase()) {
          return Option.none<string>()
        }
        shownOnce.delete(digest)
        return DateTime.isLessThan(now, held.expiresAt) ? Option.some(held.sealed) : Option.none<string>()
      })

    return ShownOnceStore.of({ hold, take })
  })
)
