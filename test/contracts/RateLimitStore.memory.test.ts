import * as MemoryStorage from "../../core/memory/MemoryStorage.ts"
import { describeRateLimitStore } from "./RateLimitStore.contract.ts"

describeRateLimitStore("memory", MemoryStorage.layer)
