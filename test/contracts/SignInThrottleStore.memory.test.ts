import { Layer } from "effect"
import { layerMemory, layerOwnState } from "../../core/accounts/memory/SignInThrottleStore.ts"
import { states as memoryStates } from "../../core/memory/MemoryStorage.ts"
import { describeSignInThrottleStore } from "./SignInThrottleStore.contract.ts"

// Over the shared state, as `MemoryStorage.layer` provides it, and over tables of its own, as the
// service runs without a database.
describeSignInThrottleStore("memory", layerMemory.pipe(Layer.provide(memoryStates)))
describeSignInThrottleStore("memory, own state", layerOwnState())
