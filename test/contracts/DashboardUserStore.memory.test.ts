import { Layer } from "effect"
import * as MemoryDashboardUserStore from "../../core/accounts/memory/DashboardUserStore.ts"
import { states as memoryStates } from "../../core/memory/MemoryStorage.ts"
import * as MemoryOrganizations from "../../core/shared/memory/Organizations.ts"
import { describeRecoveryCodeStore } from "./DashboardRecoveryCodes.contract.ts"
import { describeSecondFactorStore } from "./DashboardSecondFactor.contract.ts"
import { describeDashboardUserStore } from "./DashboardUserStore.contract.ts"

const store = Layer.merge(MemoryDashboardUserStore.layerMemory, MemoryOrganizations.layerMemory).pipe(
  Layer.provide(memoryStates)
)

describeDashboardUserStore("memory", store)
describeSecondFactorStore("memory", store)
describeRecoveryCodeStore("memory", store)
