/** The `WebhookStore` contract on the memory twin. */
import { Layer } from "effect"
import * as MemoryWebhookStore from "../../core/webhooks/memory/WebhookStore.ts"
import * as MemoryHarness from "./PairStore.memoryHarness.ts"
import { describeWebhookStoreContract } from "./WebhookStore.contract.ts"

describeWebhookStoreContract("memory", MemoryWebhookStore.layerMemory.pipe(Layer.provideMerge(MemoryHarness.layer)))
