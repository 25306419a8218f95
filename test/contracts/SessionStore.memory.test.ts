import { Layer } from "effect"
import { layerMemory } from "../../core/accounts/memory/SessionStore.ts"
import * as MemoryUserStore from "../../core/accounts/memory/UserStore.ts"
import { states as memoryStates } from "../../core/memory/MemoryStorage.ts"
import * as MemoryOrganizations from "../../core/shared/memory/Organizations.ts"
import { describeSessionStore } from "./SessionStore.contract.ts"

describeSessionStore(
  "memory",
  Layer.mergeAll(layerMemory, MemoryUserStore.layerMemory, MemoryOrganizations.layerMemory).pipe(
    Layer.provide(memoryStates)
  )
)
