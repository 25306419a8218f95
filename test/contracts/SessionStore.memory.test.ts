import { Layer } from "effect"
import * as MemoryDashboardUserStore from "../../core/accounts/memory/DashboardUserStore.ts"
import { layerMemory } from "../../core/accounts/memory/SessionStore.ts"
import { states as memoryStates } from "../../core/memory/MemoryStorage.ts"
import * as MemoryOrganizations from "../../core/shared/memory/Organizations.ts"
import { describeSessionStore } from "./SessionStore.contract.ts"

describeSessionStore(
  "memory",
  Layer.mergeAll(layerMemory, MemoryDashboardUserStore.layerMemory, MemoryOrganizations.layerMemory).pipe(
    Layer.provide(memoryStates)
  )
)
