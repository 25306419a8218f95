/** The `WebhookEndpointStore` contract on the memory twin, beside the delivery twin over the same state. */
import { Layer } from "effect"
import * as MemoryWebhookDeliveryStore from "../../core/webhooks/memory/WebhookDeliveryStore.ts"
import * as MemoryWebhookEndpointStore from "../../core/webhooks/memory/WebhookEndpointStore.ts"
import * as MemoryHarness from "./PairStore.memoryHarness.ts"
import { describeWebhookEndpointStoreContract } from "./WebhookEndpointStore.contract.ts"

describeWebhookEndpointStoreContract(
  "memory",
  Layer.merge(MemoryWebhookEndpointStore.layerMemory, MemoryWebhookDeliveryStore.layerMemory).pipe(
    Layer.provideMerge(MemoryHarness.layer)
  )
)
