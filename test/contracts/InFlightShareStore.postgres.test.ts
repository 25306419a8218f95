import { Duration, Layer } from "effect"
import * as PgInFlightStore from "../../adapters/postgres/PgInFlightStore.ts"
import * as TestDatabase from "../support/TestDatabase.ts"
import { describeInFlightShares } from "./InFlightShareStore.contract.ts"

describeInFlightShares("PostgreSQL", PgInFlightStore.shareStore.pipe(Layer.provide(TestDatabase.layer)), {
  runs: "wall clock",
  timing: { lease: Duration.millis(600), heartbeat: Duration.millis(100) }
})
