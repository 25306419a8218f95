/** The `WebhookOverview` contract on the memory twin, over the memory webhook store's state. */
import { Layer } from "effect"
import * as MemoryWebhookOverview from "../../core/webhooks/memory/WebhookOverview.ts"
import { memoryStorage } from "../webhooks/support/Services.ts"
import { describeWebhookOverview } from "./WebhookOverview.contract.ts"

describeWebhookOverview("memory", MemoryWebhookOverview.layerMemory.pipe(Layer.provideMerge(memoryStorage)))
