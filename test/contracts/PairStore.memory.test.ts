/** The `PairStore` contract on the memory twin. */
import { describePairStoreContract } from "./PairStore.contract.ts"
import * as MemoryHarness from "./PairStore.memoryHarness.ts"

describePairStoreContract("memory", MemoryHarness.layer)
