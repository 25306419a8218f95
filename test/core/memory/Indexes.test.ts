/**
 * The memory twins find one organization's rows through an index, as PostgreSQL does through
 * `org_id`, rather than by walking every organization's: a read of one organization costs what
 * that organization holds, whatever the others hold. Each law fills the state with many worlds
 * of the `ReceivableStore` contract and counts the walks of the whole tables while one
 * organization is read.
 */
import { assert, describe, it } from "@effect/vitest"
import { Effect, Layer, Option } from "effect"
import fc from "fast-check"
import * as MemoryReceivableStore from "../../../core/receivables/memory/ReceivableStore.ts"
import { ReceivablesState } from "../../../core/receivables/memory/ReceivablesState.ts"
import { ReceivableStore } from "../../../core/receivables/ports/ReceivableStore.ts"
import { buildWorld, worldPlan } from "../../contracts/ReceivableStore.model.ts"

/** A table that counts how often it is walked whole. */
class CountingMap<K, V> extends Map<K, V> {
  walks = 0
  override entries() {
    this.walks += 1
    return super.entries()
  }
  override values() {
    this.walks += 1
    return super.values()
  }
  override keys() {
    this.walks += 1
    return super.keys()
  }
  override forEach(each: (value: V, key: K, map: Map<K, V>) => void) {
    this.walks += 1
    super.forEach(each)
  }
  override [Symbol.iterator]() {
    this.walks += 1
    return super[Symbol.iterator]()
  }
}

const receivables = new CountingMap<string, never>()
const pairs = new CountingMap<string, never>()

// A fresh state whose receivables and pairs tables count their walks.
const counted = Layer.effect(
  ReceivablesState,
  Effect.map(Effect.service(ReceivablesState), (tables) => ReceivablesState.of({ ...tables, receivables, pairs }))
).pipe(Layer.provide(ReceivablesState.layer))

const TestLayer = MemoryReceivableStore.layerMemory.pipe(Layer.provideMerge(counted))

describe("the memory read path's indexes", () => {
  it.effect(
    "reads an organization's receivables, vendors, debtors and integrations without walking every organization's",
    () =>
      Effect.gen(function* () {
        const store = yield* ReceivableStore
        const seeding = yield* MemoryReceivableStore.MemoryReceivables
        const worlds = fc.sample(worldPlan, { numRuns: 40, seed: 40 }).map(buildWorld)
        for (const world of worlds) yield* seeding.seed(world)
        const world = worlds[0]!
        const org = world.orgs[0]
        const vendorId = world.vendors[0]!.id
        const debtorId = world.debtors[0]!.id
        receivables.walks = 0
        pairs.walks = 0

        const page = yield* store
          .listReceivables(org, {
            filter: {},
            window: { offset: 0, limit: 100 },
            history: Option.none(),
            metadata: false
          })
          .pipe(Effect.orDie)
        assert.strictEqual(page.totalCount, world.receivables.filter((r) => r.orgId === org).length)
        yield* store.listVendors(org, {})
        yield* store.listVendors(org, { debtorId })
        yield* store.listDebtors(org, {})
        yield* store.listDebtors(org, { vendorId })
        yield* store.listIntegrations(org, {})

        assert.deepStrictEqual({ receivables: receivables.walks, pairs: pairs.walks }, { receivables: 0, pairs: 0 })
      }).pipe(Effect.provide(TestLayer))
  )
})
