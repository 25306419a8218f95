import { Layer } from "effect"
import * as PgSignInThrottleStore from "../../adapters/postgres/PgSignInThrottleStore.ts"
import * as TestDatabase from "../support/TestDatabase.ts"
import { describeSignInThrottleStore } from "./SignInThrottleStore.contract.ts"

describeSignInThrottleStore("PostgreSQL", PgSignInThrottleStore.layer.pipe(Layer.provide(TestDatabase.layer)))
