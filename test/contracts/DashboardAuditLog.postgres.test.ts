import { Layer } from "effect"
import * as PgDashboardAuditLog from "../../adapters/postgres/PgDashboardAuditLog.ts"
import * as PgOrganizations from "../../adapters/postgres/PgOrganizations.ts"
import * as PgUserStore from "../../adapters/postgres/PgUserStore.ts"
import * as TestDatabase from "../support/TestDatabase.ts"
import { describeDashboardAuditLog } from "./DashboardAuditLog.contract.ts"

describeDashboardAuditLog(
  "PostgreSQL",
  Layer.mergeAll(PgDashboardAuditLog.layer, PgUserStore.layer, PgOrganizations.layer).pipe(
    Layer.provide(TestDatabase.layer)
  )
)
