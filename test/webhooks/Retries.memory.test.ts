/** Retries as a receiver sees them, with the memory store. */
import { describeRetries } from "./Retries.kit.ts"
import { memoryStorage } from "./support/Services.ts"

describeRetries("memory", memoryStorage)
