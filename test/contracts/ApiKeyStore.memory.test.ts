import { Layer } from "effect"
import { layerMemory } from "../../core/memory/ApiKeyStore.ts"
import * as MemoryOrganizations from "../../core/memory/Organizations.ts"
import { describeApiKeyStore } from "./ApiKeyStore.contract.ts"

describeApiKeyStore("memory", layerMemory.pipe(Layer.provideMerge(MemoryOrganizations.layerMemory)))
