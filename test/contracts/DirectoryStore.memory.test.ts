import { Effect, Layer } from "effect"
import { states as memoryStates } from "../../core/memory/MemoryStorage.ts"
import * as MemoryDirectoryStore from "../../core/receivables/memory/DirectoryStore.ts"
import * as MemoryOrganizations from "../../core/shared/memory/Organizations.ts"
import { describeDirectoryStore } from "./DirectoryStore.contract.ts"

describeDirectoryStore(
  "memory",
  Layer.merge(MemoryDirectoryStore.layerMemory, MemoryOrganizations.layerMemory).pipe(Layer.provide(memoryStates)),
  (pair, run) =>
    Effect.flatMap(Effect.service(MemoryDirectoryStore.MemoryDirectory), (seeding) =>
      Effect.orDie(seeding.addRun(pair.id, run))
    )
)
