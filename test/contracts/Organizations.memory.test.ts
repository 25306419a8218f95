import { Layer } from "effect"
import { MemoryState } from "../../core/memory/MemoryState.ts"
import { layerMemory } from "../../core/shared/memory/Organizations.ts"
import { describeOrganizations } from "./Organizations.contract.ts"

describeOrganizations("memory", layerMemory.pipe(Layer.provide(MemoryState.layer)))
