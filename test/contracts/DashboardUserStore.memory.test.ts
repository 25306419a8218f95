import { Layer } from "effect"
import * as MemoryDashboardUserStore from "../../core/memory/DashboardUserStore.ts"
import * as MemoryOrganizations from "../../core/memory/Organizations.ts"

import { describeDashboardUserStore } from "./DashboardUserStore.contract.ts"

describeDashboardUserStore(
  "memory",
  MemoryDashboardUserStore.layerMemory.pipe(Layer.provideMerge(MemoryOrganizations.layerMemory))
)
