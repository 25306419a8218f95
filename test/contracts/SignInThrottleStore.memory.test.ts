import { layerOwnState } from "../../core/memory/SignInThrottleStore.ts"
import { describeSignInThrottleStore } from "./SignInThrottleStore.contract.ts"

describeSignInThrottleStore("memory", layerOwnState())
