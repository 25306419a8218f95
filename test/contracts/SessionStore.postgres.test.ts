import { Layer } from "effect"
import * as PgDashboardUserStore from "../../adapters/postgres/PgDashboardUserStore.ts"
import * as PgOrganizations from "../../adapters/postgres/PgOrganizations.ts"
import * as PgSessionStore from "../../adapters/postgres/PgSessionStore.ts"
import * as TestDatabase from "../support/TestDatabase.ts"
import { describeSessionStore } from "./SessionStore.contract.ts"

describeSessionStore(
  "PostgreSQL",
  Layer.mergeAll(PgSessionStore.layer, PgDashboardUserStore.layer, PgOrganizations.layer).pipe(
    Layer.provide(TestDatabase.layer)
  )
)
