/**
 * `InFlightShareStore` in memory: one table of leased shares for the processes that share the
 * layer, by the clock of the fiber that asks (so that tests end leases with `TestClock`). Held to
 * the rules of `in_flight_shares` by the same pure arithmetic. Depends on `effect` and core only.
 */
import { Clock, Duration, Effect, Layer } from "effect"
import * as Shares from "../domain/InFlightShares.ts"
import { InFlightShareStore } from "../ports/InFlightShareStore.ts"

export const layer: Layer.Layer<InFlightShareStore> = Layer.sync(InFlightShareStore, () => {
  let table: Shares.ShareTable = []
  return InFlightShareStore.of({
    grant: (process, owner, want, caps, lease) =>
      Effect.map(Clock.currentTimeMillis, (now) => {
        const next = Shares.grant(table, {
          process,
          asks: [
            { owner: owner.keyId, want: want.key, cap: caps.perKey },
            { owner: owner.orgId, want: want.organization, cap: caps.perOrganization }
          ],
          now,
          leaseMillis: Duration.toMillis(lease)
        })
        table = next.table
        const short = next.short === undefined ? null : next.short === 0 ? "key" : "organization"
        return { key: next.granted[0]!, organization: next.granted[1]!, short } as const
      }),
    renew: (process, needs, lease) =>
      Effect.map(Clock.currentTimeMillis, (now) => {
        const next = Shares.renew(
          table,
          process,
          new Map(needs.map((need) => [need.owner, need.share])),
          now,
          Duration.toMillis(lease)
        )
        table = next.table
        return next.held
      }),
    release: (process) =>
      Effect.sync(() => {
        table = Shares.release(table, process)
      })
  })
})
