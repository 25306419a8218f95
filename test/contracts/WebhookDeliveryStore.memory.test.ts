/** The `WebhookDeliveryStore` contract on the memory twin, beside the endpoint twin over the same state. */
import { Layer } from "effect"
import * as MemoryWebhookDeliveryStore from "../../core/webhooks/memory/WebhookDeliveryStore.ts"
import * as MemoryWebhookEndpointStore from "../../core/webhooks/memory/WebhookEndpointStore.ts"
import * as MemoryHarness from "./PairStore.memoryHarness.ts"
import { describeWebhookDeliveryStoreContract } from "./WebhookDeliveryStore.contract.ts"

describeWebhookDeliveryStoreContract(
  "memory",
  Layer.merge(MemoryWebhookEndpointStore.layerMemory, MemoryWebhookDeliveryStore.layerMemory).pipe(
    Layer.provideMerge(MemoryHarness.layer)
  )
)
