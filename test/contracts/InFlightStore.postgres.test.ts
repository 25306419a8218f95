import { Layer } from "effect"
import * as PgInFlightStore from "../../adapters/postgres/PgInFlightStore.ts"
import * as TestDatabase from "../support/TestDatabase.ts"
import { describeInFlightStore } from "./InFlightStore.contract.ts"

describeInFlightStore("PostgreSQL", PgInFlightStore.layer.pipe(Layer.provide(TestDatabase.layer)))
