import { layerMemory } from "../../core/memory/Organizations.ts"
import { describeOrganizations } from "./Organizations.contract.ts"

describeOrganizations("memory", layerMemory)
