import { Duration } from "effect"
import * as MemoryInFlightShareStore from "../../core/access/memory/InFlightShareStore.ts"
import { describeInFlightShares } from "./InFlightShareStore.contract.ts"

describeInFlightShares("memory", MemoryInFlightShareStore.layer, {
  runs: "test clock",
  timing: { lease: Duration.seconds(5), heartbeat: Duration.seconds(1) }
})
