import { layerMemory } from "../../core/memory/AuditLog.ts"
import { describeAuditLog } from "./AuditLog.contract.ts"

describeAuditLog("memory", layerMemory)
