/** What a receiver sees, with the memory store. */
import { Layer } from "effect"
import * as MemoryWebhookStore from "../../core/memory/WebhookStore.ts"
import * as MemoryHarness from "../contracts/PairStore.memoryHarness.ts"
import { describeDelivery } from "./Delivery.kit.ts"

describeDelivery("memory", MemoryWebhookStore.layerMemory.pipe(Layer.provideMerge(MemoryHarness.layer)))
