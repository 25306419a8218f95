import { Layer } from "effect"
import { states as memoryStates } from "../../core/memory/MemoryStorage.ts"
import { layerMemory } from "../../core/shared/memory/Organizations.ts"
import { describeOrganizations } from "./Organizations.contract.ts"

describeOrganizations("memory", layerMemory.pipe(Layer.provide(memoryStates)))
