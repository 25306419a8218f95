import { Layer } from "effect"
import { states as memoryStates } from "../../core/memory/MemoryStorage.ts"
import * as MemoryReceivableSearch from "../../core/receivables/memory/ReceivableSearch.ts"
import { describeReceivableSearch } from "./ReceivableSearch.contract.ts"
import { memorySeed } from "./ReceivableStore.seed.ts"

describeReceivableSearch(
  "memory",
  Layer.merge(MemoryReceivableSearch.layerMemory, memorySeed).pipe(Layer.provide(memoryStates))
)
