import * as MemoryStorage from "../../core/memory/MemoryStorage.ts"
import { describeInFlightStore } from "./InFlightStore.contract.ts"

describeInFlightStore("memory", MemoryStorage.layer)
