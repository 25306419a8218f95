import * as MemoryStorage from "../../core/memory/MemoryStorage.ts"
import { describeKeyUsageStore } from "./KeyUsageStore.contract.ts"

describeKeyUsageStore("memory", MemoryStorage.layer)
