import { describeReceivableStore } from "./ReceivableStore.contract.ts"
import { memory } from "./ReceivableStore.seed.ts"

describeReceivableStore("memory", memory)
