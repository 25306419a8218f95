import { Duration, Layer } from "effect"
import * as PgInFlightStore from "../../adapters/postgres/PgInFlightStore.ts"
import * as TestDatabase from "../support/TestDatabase.ts"
import { describeInFlightStore } from "./InFlightStore.contract.ts"

describeInFlightStore(
  "PostgreSQL",
  PgInFlightStore.layerWith(Duration.minutes(1)).pipe(Layer.provide(TestDatabase.layer))
)
