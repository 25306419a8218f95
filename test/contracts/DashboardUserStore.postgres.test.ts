import { Layer } from "effect"
import * as PgDashboardUserStore from "../../adapters/postgres/PgDashboardUserStore.ts"
import * as PgOrganizations from "../../adapters/postgres/PgOrganizations.ts"

import * as TestDatabase from "../support/TestDatabase.ts"
import { describeRecoveryCodeStore } from "./DashboardRecoveryCodes.contract.ts"
import { describeSecondFactorStore } from "./DashboardSecondFactor.contract.ts"
import { describeDashboardUserStore } from "./DashboardUserStore.contract.ts"

const store = Layer.mergeAll(PgDashboardUserStore.layer, PgOrganizations.layer).pipe(Layer.provide(TestDatabase.layer))

describeDashboardUserStore("PostgreSQL", store)
describeSecondFactorStore("PostgreSQL", store)
describeRecoveryCodeStore("PostgreSQL", store)
