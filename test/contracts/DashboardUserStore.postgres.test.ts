import { Layer } from "effect"
import * as PgDashboardUserStore from "../../adapters/postgres/PgDashboardUserStore.ts"
import * as PgOrganizations from "../../adapters/postgres/PgOrganizations.ts"

import * as TestDatabase from "../support/TestDatabase.ts"
import { describeDashboardUserStore } from "./DashboardUserStore.contract.ts"

describeDashboardUserStore(
  "PostgreSQL",
  Layer.mergeAll(PgDashboardUserStore.layer, PgOrganizations.layer).pipe(Layer.provide(TestDatabase.layer))
)
