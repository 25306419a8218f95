/**
 * `InFlightShareStore` in memory, over the memory world's `AccessState`: one table of leased shares
 * for the processes that share it, by the clock of the fiber that asks (so that tests end leases with `TestClock`). Held to
 * the rules of `in_flight_shares` by the same pure arithmetic. Depends on `effect` and core only.
 */
import { Clock, Duration, Effect, Layer } from "effect"
import * as Shares from "../domain/InFlightShares.ts"
import { InFlightShareStore } from "../ports/InFlightShareStore.ts"
import { AccessState } from "./AccessState.ts"

export const layerMemory: Layer.Layer<InFlightShareStore, never, AccessState> = Layer.effect(
  InFlightShareStore,
  Effect.gen(function* () {
    const { inFlightShares } = yield* AccessState
    const keep = (table: Shares.ShareTable) => {
      inFlightShares.splice(0, inFlightShares.length, ...table)
    }
    return InFlightShareStore.of({
      grant: (process, owner, need, want, caps, lease) =>
        Effect.map(Clock.currentTimeMillis, (now) => {
          const next = Shares.grant(inFlightShares, {
            process,
            asks: [
              { owner: owner.keyId, need: need.key, want: want.key, cap: caps.perKey },
              { owner: owner.orgId, need: need.organization, want: want.organization, cap: caps.perOrganization }
            ],
            now,
            leaseMillis: Duration.toMillis(lease)
          })
          keep(next.table)
          const short = next.short === undefined ? null : next.short === 0 ? "key" : "organization"
          return { key: next.granted[0]!, organization: next.granted[1]!, short } as const
        }),
      renew: (process, needs, lease) =>
        Effect.map(Clock.currentTimeMillis, (now) => {
          const next = Shares.renew(
            inFlightShares,
            process,
            new Map(needs.map((need) => [need.owner, need.share])),
            now,
            Duration.toMillis(lease)
          )
          keep(next.table)
          return next.held
        }),
      release: (process) => Effect.sync(() => keep(Shares.release(inFlightShares, process)))
    })
  })
)

/** The twin over a table of its own, shared by the processes built over this layer. */
export const layer: Layer.Layer<InFlightShareStore> = layerMemory.pipe(Layer.provide(AccessState.layer))
