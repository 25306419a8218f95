import { describeReceivableStore } from "./ReceivableStore.contract.ts"
import { postgres } from "./ReceivableStore.seed.ts"

describeReceivableStore("PostgreSQL", postgres)
