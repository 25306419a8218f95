import { Layer } from "effect"
import * as MemoryUserStore from "../../core/accounts/memory/UserStore.ts"
import { states as memoryStates } from "../../core/memory/MemoryStorage.ts"
import * as MemoryOrganizations from "../../core/shared/memory/Organizations.ts"
import { describeUserStore } from "./UserStore.contract.ts"

describeUserStore(
  "memory",
  Layer.merge(MemoryUserStore.layerMemory, MemoryOrganizations.layerMemory).pipe(Layer.provide(memoryStates))
)
