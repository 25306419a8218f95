import { Layer } from "effect"
import * as MemoryDashboardUserStore from "../../core/accounts/memory/DashboardUserStore.ts"
import { MemoryState } from "../../core/memory/MemoryState.ts"
import * as MemoryOrganizations from "../../core/shared/memory/Organizations.ts"
import { describeRecoveryCodeStore } from "./DashboardRecoveryCodes.contract.ts"
import { describeSecondFactorStore } from "./DashboardSecondFactor.contract.ts"
import { describeDashboardUserStore } from "./DashboardUserStore.contract.ts"

const store = Layer.merge(MemoryDashboardUserStore.layerMemory, MemoryOrganizations.layerMemory).pipe(
  Layer.provide(MemoryState.layer)
)

describeDashboardUserStore("memory", store)
describeSecondFactorStore("memory", store)
describeRecoveryCodeStore("memory", store)
