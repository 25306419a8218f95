import { Layer } from "effect"
import * as PgOrganizations from "../../adapters/postgres/PgOrganizations.ts"
import * as PgUserStore from "../../adapters/postgres/PgUserStore.ts"
import * as TestDatabase from "../support/TestDatabase.ts"
import { describeUserStore } from "./UserStore.contract.ts"

describeUserStore(
  "PostgreSQL",
  Layer.merge(PgUserStore.layer, PgOrganizations.layer).pipe(Layer.provide(TestDatabase.layer))
)
