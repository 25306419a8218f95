import { Layer } from "effect"
import { layerMemory, layerOwnState } from "../../core/accounts/memory/SignInThrottleStore.ts"
import { MemoryState } from "../../core/memory/MemoryState.ts"
import { describeSignInThrottleStore } from "./SignInThrottleStore.contract.ts"

// Over the shared state, as `MemoryStorage.layer` provides it, and over tables of its own, as the
// service runs without a database.
describeSignInThrottleStore("memory", layerMemory.pipe(Layer.provide(MemoryState.layer)))
describeSignInThrottleStore("memory, own state", layerOwnState())
