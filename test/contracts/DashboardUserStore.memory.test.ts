import { Layer } from "effect"
import * as MemoryDashboardUserStore from "../../core/memory/DashboardUserStore.ts"
import * as MemoryOrganizations from "../../core/memory/Organizations.ts"

import { describeSecondFactorStore } from "./DashboardSecondFactor.contract.ts"
import { describeDashboardUserStore } from "./DashboardUserStore.contract.ts"

const store = MemoryDashboardUserStore.layerMemory.pipe(Layer.provideMerge(MemoryOrganizations.layerMemory))

describeDashboardUserStore("memory", store)
describeSecondFactorStore("memory", store)
