import { randomUUID } from "node:crypto"
import { Effect } from "effect"
import type { ApiKeyId } from "../../core/domain/Ids.ts"
import { layerMemory } from "../../core/memory/AuditLog.ts"
import { describeAuditLog } from "./AuditLog.contract.ts"

// The memory log counts no usage, so any key ids will do.
describeAuditLog(
  "memory",
  layerMemory,
  Effect.sync(() => [randomUUID() as ApiKeyId, randomUUID() as ApiKeyId] as const)
)
