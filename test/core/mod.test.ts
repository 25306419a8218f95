import { assert, describe, it } from "@effect/vitest"
import { Context, Effect, Layer, Option } from "effect"
import * as Core from "../../core/mod.ts"

describe("core/mod.ts", () => {
  it("exposes the domain, the contract, the ports and the services to library users", () => {
    assert.strictEqual(Core.Status.normalizeStatus("Approved for payment"), "APPROVED")
    assert.isFunction(Core.PairSync.planPairSync)
    assert.isFunction(Core.Api.Api)
    assert.isFunction(Core.PortalConnector.validateConfig)
  })
})

describe("the in-memory twins", () => {
  // That it provides every storage port is held against each context's ports by test/core/memory/StoragePorts.test.ts.
  it.effect("MemoryStorage.layer provides its twins over the tables it provides", () =>
    Effect.scoped(
      Effect.gen(function* () {
        const context = yield* Layer.build(Core.MemoryStorage.layer)
        for (const state of [
          Core.OrganizationsState.OrganizationsState,
          Core.ReceivablesState.ReceivablesState,
          Core.AccessState.AccessState,
          Core.AccountsState.AccountsState,
          Core.WebhooksState.WebhooksState
        ]) {
          assert.isTrue(Option.isSome(Context.getOption(context, state as Context.Key<unknown, unknown>)))
        }
        // One world: an organization created through one twin is the one a key is stored for.
        const org = yield* Context.get(context, Core.Organizations.Organizations).create("Shared")
        const tables = Context.get(context, Core.OrganizationsState.OrganizationsState)
        assert.strictEqual(tables.organizations.get(org.id), org)
      })
    )
  )
})
