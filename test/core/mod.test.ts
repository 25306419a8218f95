import { assert, describe, it } from "@effect/vitest"
import { Layer } from "effect"
import * as Core from "../../core/mod.ts"

describe("core/mod.ts", () => {
  it("exposes the domain, the contract, the ports and the services to library users", () => {
    assert.strictEqual(Core.Status.normalizeStatus("Approved for payment"), "APPROVED")
    assert.isFunction(Core.PairSync.planPairSync)
    assert.isFunction(Core.Api.Api)
    assert.isFunction(Core.ReceivableStore.ReceivableStore)
    assert.isFunction(Core.SyncEngine.SyncEngine)
    assert.isFunction(Core.Receivables.Receivables)
    assert.isFunction(Core.PortalConnector.validateConfig)
    assert.isFunction(Core.Secrets.Secrets)
  })
})

describe("the in-memory twins", () => {
  it("are exported for embedders, each as a layer", () => {
    for (const twin of [
      Core.MemoryApiKeyStore,
      Core.MemoryAuditLog,
      Core.MemoryDashboardAuditLog,
      Core.MemoryDashboardUserStore,
      Core.MemoryDirectoryStore,
      Core.MemoryOrganizations,
      Core.MemoryPairStore,
      Core.MemoryReceivableStore,
      Core.MemorySessionStore
    ]) {
      assert.isTrue(Layer.isLayer(twin.layerMemory))
    }
  })
})
