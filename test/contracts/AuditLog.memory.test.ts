import { randomUUID } from "node:crypto"
import { Effect, Layer } from "effect"
import { layerMemory } from "../../core/access/memory/AuditLog.ts"
import { states as memoryStates } from "../../core/memory/MemoryStorage.ts"
import type { ApiKeyId } from "../../core/shared/domain/Ids.ts"
import { describeAuditLog } from "./AuditLog.contract.ts"

// The memory log counts usage on any key id, stored or not, so any will do.
describeAuditLog(
  "memory",
  layerMemory.pipe(Layer.provide(memoryStates)),
  Effect.sync(() => [randomUUID() as ApiKeyId, randomUUID() as ApiKeyId] as const)
)
