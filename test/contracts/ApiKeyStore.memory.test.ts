import { Layer } from "effect"
import { layerMemory } from "../../core/access/memory/ApiKeyStore.ts"
import { states as memoryStates } from "../../core/memory/MemoryStorage.ts"
import * as MemoryOrganizations from "../../core/shared/memory/Organizations.ts"
import { describeApiKeyStore } from "./ApiKeyStore.contract.ts"

describeApiKeyStore(
  "memory",
  Layer.merge(layerMemory, MemoryOrganizations.layerMemory).pipe(Layer.provide(memoryStates))
)
