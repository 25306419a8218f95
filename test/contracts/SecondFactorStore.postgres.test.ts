import { Layer } from "effect"
import * as PgOrganizations from "../../adapters/postgres/PgOrganizations.ts"
import * as PgSecondFactorStore from "../../adapters/postgres/PgSecondFactorStore.ts"
import * as PgUserStore from "../../adapters/postgres/PgUserStore.ts"
import * as TestDatabase from "../support/TestDatabase.ts"
import { describeSecondFactorStore } from "./SecondFactorStore.contract.ts"
import { describeRecoveryCodeStore } from "./SecondFactorStore.recoveryCodes.ts"

const store = Layer.mergeAll(PgSecondFactorStore.layer, PgUserStore.layer, PgOrganizations.layer).pipe(
  Layer.provide(TestDatabase.layer)
)

describeSecondFactorStore("PostgreSQL", store)
describeRecoveryCodeStore("PostgreSQL", store)
