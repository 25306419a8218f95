/**
 * The contract's harness over the memory twins, through their own seeding (`MemoryPairs`): the
 * layer the memory runs of the `PairStore` and `EventFeed` contracts are given, both twins over
 * one `ReceivablesState`.
 */
import { DateTime, Duration, Effect, Layer } from "effect"
import { states as memoryStates } from "../../core/memory/MemoryStorage.ts"
import * as MemoryEventFeed from "../../core/receivables/memory/EventFeed.ts"
import { layerMemory, MemoryPairs } from "../../core/receivables/memory/PairStore.ts"
import type { Pair } from "../../core/receivables/ports/PairStore.ts"
import type { DebtorId, OrgId, PairId, VendorId } from "../../core/shared/domain/Ids.ts"
import { eventTag, PairStoreHarness } from "./PairStore.harness.ts"

// Far more turns than a session takes to open when nothing holds its pair.
const schedulerTurns = 100

const harness = Layer.effect(
  PairStoreHarness,
  Effect.gen(function* () {
    const memory = yield* MemoryPairs
    const added = new Set<PairId>()
    const contents = (pair: { readonly id: PairId }) => Effect.orDie(memory.contents(pair.id))

    const reset = Effect.forEach(
      added,
      (id) => Effect.flatMap(contents({ id }), ({ pair }) => memory.put({ ...pair, paused: true })),
      { discard: true }
    )

    const addPair = Effect.fnUntraced(function* (options: {
      readonly dueInSeconds: number
      readonly paused?: boolean
      readonly sameOrganizationAs?: Pair
    }) {
      const now = yield* DateTime.now
      const integration: Pair = {
        id: crypto.randomUUID() as PairId,
        orgId: options.sameOrganizationAs?.orgId ?? (crypto.randomUUID() as OrgId),
        refs: {
          vendor: { id: crypto.randomUUID() as VendorId, name: "V" },
          debtor: { id: crypto.randomUUID() as DebtorId, name: "D" }
        },
        connector: "simulator",
        config: {},
        interval: Duration.hours(1),
        deadline: undefined,
        consecutiveFailures: 0
      }
      const nextSyncAt = DateTime.add(now, { seconds: options.dueInSeconds })
      yield* memory.put({ integration, nextSyncAt, paused: options.paused ?? false })
      added.add(integration.id)
      return integration
    })

    const expireLease = Effect.fnUntraced(function* (integration: Pair) {
      const { pair } = yield* contents(integration)
      const expiresAt = DateTime.subtract(yield* DateTime.now, { seconds: 1 })
      if (pair.lease !== undefined) yield* memory.put({ ...pair, lease: { ...pair.lease, expiresAt } })
    })

    return PairStoreHarness.of({
      reset,
      addPair,
      importReceivable: (pair, receivable) => memory.importReceivables(pair.id, [receivable]),
      expireLease,
      expireRuns: memory.expireRuns,
      runsLeft: Effect.map(memory.runsInFlight, ({ runs, staged }) => runs + staged),
      // The memory store does no I/O: once every fiber that can run has run, a session still
      // being opened is one that waits for the pair (the contract checks that it has not opened).
      sessionWaiting: () => Effect.repeat(Effect.yieldNow, { times: schedulerTurns }),
      stored: (integration) =>
        Effect.map(contents(integration), (stored) => ({
          receivables: stored.receivables.map(({ id, documentKey, state, updatedAt }) => ({
            id,
            documentKey,
            state,
            updatedAt: DateTime.toEpochMillis(updatedAt)
          })),
          history: stored.history.map(({ receivableId, changes }) => ({ receivableId, changes })),
          events: stored.events.map(eventTag),
          runs: stored.runs.map((run) => ({
            worker: run.worker,
            outcome: run.outcome,
            counts: run.run?.counts ?? null,
            error: run.error ?? null
          })),
          // The harness's pairs are never paused by a directory, which alone clears the next sync.
          nextSyncAt: stored.pair.nextSyncAt === null ? Number.NaN : DateTime.toEpochMillis(stored.pair.nextSyncAt),
          leaseOwner: stored.pair.lease?.owner ?? null,
          consecutiveFailures: stored.pair.integration.consecutiveFailures
        }))
    })
  })
)

export const layer = harness.pipe(
  Layer.provideMerge(Layer.merge(layerMemory, MemoryEventFeed.layerMemory)),
  Layer.provideMerge(memoryStates)
)
