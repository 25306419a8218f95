import { Layer } from "effect"
import * as MemorySecondFactorStore from "../../core/accounts/memory/SecondFactorStore.ts"
import * as MemoryUserStore from "../../core/accounts/memory/UserStore.ts"
import { states as memoryStates } from "../../core/memory/MemoryStorage.ts"
import * as MemoryOrganizations from "../../core/shared/memory/Organizations.ts"
import { describeSecondFactorStore } from "./SecondFactorStore.contract.ts"
import { describeRecoveryCodeStore } from "./SecondFactorStore.recoveryCodes.ts"

const store = Layer.mergeAll(
  MemorySecondFactorStore.layerMemory,
  MemoryUserStore.layerMemory,
  MemoryOrganizations.layerMemory
).pipe(Layer.provide(memoryStates))

describeSecondFactorStore("memory", store)
describeRecoveryCodeStore("memory", store)
