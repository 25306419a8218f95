import { Layer } from "effect"
import { layerMemory } from "../../core/accounts/memory/ShownOnceStore.ts"
import { MemoryState } from "../../core/memory/MemoryState.ts"
import * as MemoryOrganizations from "../../core/shared/memory/Organizations.ts"
import { describeShownOnceStore } from "./ShownOnceStore.contract.ts"

describeShownOnceStore(
  "memory",
  Layer.mergeAll(layerMemory, MemoryOrganizations.layerMemory).pipe(Layer.provide(MemoryState.layer))
)
