import { Layer } from "effect"
import { layerMemory } from "../../core/memory/DashboardAuditLog.ts"
import * as MemoryDashboardUserStore from "../../core/memory/DashboardUserStore.ts"
import * as MemoryOrganizations from "../../core/memory/Organizations.ts"
import { describeDashboardAuditLog } from "./DashboardAuditLog.contract.ts"

describeDashboardAuditLog(
  "memory",
  Layer.mergeAll(layerMemory, MemoryDashboardUserStore.layerMemory).pipe(
    Layer.provideMerge(MemoryOrganizations.layerMemory)
  )
)
