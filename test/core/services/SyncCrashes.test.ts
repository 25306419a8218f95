/**
 * The sync in two phases over the memory twin, with a worker dying at a random step of either
 * phase (`test/support/SyncCrashes.ts`): the pair is wholly old or wholly new, the next sync after
 * the dead run's lease ran out completes it with exactly the core's plan, nothing stays staged.
 */
import { layer } from "@effect/vitest"
import { Duration, Effect, Layer } from "effect"
import { TestClock } from "effect/testing"
import { states as memoryStates } from "../../../core/memory/MemoryStorage.ts"
import { layerMemory, MemoryPairs } from "../../../core/receivables/memory/PairStore.ts"
import { defaultLease } from "../../../core/receivables/services/SyncEngine.ts"
import { CrashWorld, crashing, crashProperty } from "../../support/SyncCrashes.ts"
import { addPair, contents, engineLayer, rescript } from "./SyncKit.ts"

const world = Layer.effect(
  CrashWorld,
  Effect.gen(function* () {
    const memory = yield* MemoryPairs
    return CrashWorld.of({
      addPair: (documents) => addPair({ documents }).pipe(Effect.provideService(MemoryPairs, memory)),
      rescript: (pair, documents) => rescript(pair, { documents }).pipe(Effect.provideService(MemoryPairs, memory)),
      view: (pair) =>
        Effect.map(contents(pair).pipe(Effect.provideService(MemoryPairs, memory)), (stored) => ({
          receivables: stored.receivables.map(({ id, documentKey, state }) => ({ id, documentKey, state })),
          history: stored.history.map(({ receivableId, changes }) => ({ receivableId, changes })),
          events: stored.events.map(({ type, receivableId }) => ({ type, receivableId }))
        })),
      expireRuns: TestClock.adjust(Duration.sum(defaultLease, Duration.seconds(1))),
      leftovers: Effect.map(memory.runsInFlight, ({ runs, staged }) => runs + staged)
    })
  })
)

layer(
  world.pipe(Layer.provideMerge(engineLayer({ chunkSize: 2 }, crashing(layerMemory.pipe(Layer.provide(memoryStates))))))
)("the sync under crashes, memory twin", (it) => {
  it.effect(
    "a worker dying at any step of either phase leaves its pair wholly old or new; the next sync completes it",
    () => crashProperty(150)
  )
})
