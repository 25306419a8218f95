import { Layer } from "effect"
import * as PgOrganizations from "../../adapters/postgres/PgOrganizations.ts"
import * as PgSessionStore from "../../adapters/postgres/PgSessionStore.ts"
import * as PgUserStore from "../../adapters/postgres/PgUserStore.ts"
import * as TestDatabase from "../support/TestDatabase.ts"
import { describeSessionStore } from "./SessionStore.contract.ts"

describeSessionStore(
  "PostgreSQL",
  Layer.mergeAll(PgSessionStore.layer, PgUserStore.layer, PgOrganizations.layer).pipe(Layer.provide(TestDatabase.layer))
)
