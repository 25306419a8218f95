/** The `EventFeed` contract on the memory twin. */
import { describeEventFeedContract } from "./EventFeed.contract.ts"
import * as MemoryHarness from "./PairStore.memoryHarness.ts"

describeEventFeedContract("memory", MemoryHarness.layer)
