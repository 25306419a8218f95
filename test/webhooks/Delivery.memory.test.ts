/** What a receiver sees, with the memory store. */
import { describeDelivery } from "./Delivery.kit.ts"
import { memoryStorage } from "./support/Services.ts"

describeDelivery("memory", memoryStorage)
