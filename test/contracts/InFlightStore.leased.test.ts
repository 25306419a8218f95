import { randomUUID } from "node:crypto"
import { Duration, Layer } from "effect"
import * as MemoryInFlightShareStore from "../../core/access/memory/InFlightShareStore.ts"
import * as LeasedInFlight from "../../core/access/services/LeasedInFlight.ts"
import { describeInFlightStore } from "./InFlightStore.contract.ts"

describeInFlightStore(
  "leased shares in memory",
  LeasedInFlight.layer(randomUUID(), { lease: Duration.seconds(5), heartbeat: Duration.seconds(1) }).pipe(
    Layer.provide(MemoryInFlightShareStore.layer)
  )
)
