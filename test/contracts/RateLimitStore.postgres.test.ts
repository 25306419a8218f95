import { Layer } from "effect"
import * as PgRateLimitStore from "../../adapters/postgres/PgRateLimitStore.ts"
import * as TestDatabase from "../support/TestDatabase.ts"
import { describeRateLimitStore } from "./RateLimitStore.contract.ts"

describeRateLimitStore("PostgreSQL", PgRateLimitStore.layer.pipe(Layer.provide(TestDatabase.layer)))
