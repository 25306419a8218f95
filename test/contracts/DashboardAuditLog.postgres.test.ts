import { Layer } from "effect"
import * as PgDashboardAuditLog from "../../adapters/postgres/PgDashboardAuditLog.ts"
import * as PgDashboardUserStore from "../../adapters/postgres/PgDashboardUserStore.ts"
import * as PgOrganizations from "../../adapters/postgres/PgOrganizations.ts"
import * as TestDatabase from "../support/TestDatabase.ts"
import { describeDashboardAuditLog } from "./DashboardAuditLog.contract.ts"

describeDashboardAuditLog(
  "PostgreSQL",
  Layer.mergeAll(PgDashboardAuditLog.layer, PgDashboardUserStore.layer, PgOrganizations.layer).pipe(
    Layer.provide(TestDatabase.layer)
  )
)
