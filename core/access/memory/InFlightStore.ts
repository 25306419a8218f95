/**
 * `InFlightStore` in memory, over the memory world's `AccessState`: counts per key and per organization,
 * held to the same contract as the leased shares in PostgreSQL (`test/contracts/InFlightStore.contract.ts`).
 * Only what is in flight is kept: an entry leaves when its count returns to zero. Nothing outlives
 * the process, so no lease is needed. Depends on `effect` and core only.
 */
import { Effect, Layer } from "effect"
import { InFlightStore } from "../ports/InFlightStore.ts"
import { AccessState } from "./AccessState.ts"

const add = (counts: Map<string, number>, id: string, delta: number) => {
  const next = (counts.get(id) ?? 0) + delta
  if (next === 0) counts.delete(id)
  else counts.set(id, next)
}

export const layerMemory: Layer.Layer<InFlightStore, never, AccessState> = Layer.effect(
  InFlightStore,
  Effect.gen(function* () {
    const { inFlightByKey, inFlightByOrganization } = yield* AccessState
    return InFlightStore.of({
      admit: (owner, caps) =>
        Effect.sync(() => {
          if ((inFlightByKey.get(owner.keyId) ?? 0) >= caps.perKey) return { _tag: "Refused", scope: "key" } as const
          if ((inFlightByOrganization.get(owner.orgId) ?? 0) >= caps.perOrganization) {
            return { _tag: "Refused", scope: "organization" } as const
          }
          add(inFlightByKey, owner.keyId, 1)
          add(inFlightByOrganization, owner.orgId, 1)
          return {
            _tag: "Admitted",
            release: Effect.sync(() => {
              add(inFlightByKey, owner.keyId, -1)
              add(inFlightByOrganization, owner.orgId, -1)
            })
          } as const
        })
    })
  })
)

/** The twin over a state of its own: counts in this process alone, with nothing else to share. */
export const layerOwnState: Layer.Layer<InFlightStore> = layerMemory.pipe(Layer.provide(AccessState.layer))
