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
  it.effect("MemoryStorage.layer provides every storage port, each over the one state it provides", () =>
    Effect.scoped(
      Effect.gen(function* () {
        const context = yield* Layer.build(Core.MemoryStorage.layer)
        const ports: ReadonlyArray<Context.Key<unknown, unknown>> = [
          Core.ApiKeyStore.ApiKeyStore,
          Core.AuditLog.AuditLog,
          Core.DashboardAuditLog.DashboardAuditLog,
          Core.DashboardUserStore.DashboardUserStore,
          Core.DirectoryStore.DirectoryStore,
          Core.EventFeed.EventFeed,
          Core.KeyUsageStore.KeyUsageStore,
          Core.Organizations.Organizations,
          Core.PairStore.PairStore,
          Core.ReceivableStore.ReceivableStore,
          Core.SessionStore.SessionStore,
          Core.MemoryState.MemoryState
        ]
        for (const port of ports) assert.isTrue(Option.isSome(Context.getOption(context, port)), port.key)
        // One state: an organization created through one twin is the one a key is stored for.
        const org = yield* Context.get(context, Core.Organizations.Organizations).create("Shared")
        const tables = Context.get(context, Core.MemoryState.MemoryState)
        assert.strictEqual(tables.organizations.get(org.id), org)
      })
    )
  )
})
