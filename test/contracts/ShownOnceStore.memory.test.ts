import { Layer } from "effect"
import { layerMemory } from "../../core/accounts/memory/ShownOnceStore.ts"
import { states as memoryStates } from "../../core/memory/MemoryStorage.ts"
import * as MemoryOrganizations from "../../core/shared/memory/Organizations.ts"
import { describeShownOnceStore } from "./ShownOnceStore.contract.ts"

describeShownOnceStore(
  "memory",
  Layer.mergeAll(layerMemory, MemoryOrganizations.layerMemory).pipe(Layer.provide(memoryStates))
)
