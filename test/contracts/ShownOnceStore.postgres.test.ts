import { Layer } from "effect"
import * as PgOrganizations from "../../adapters/postgres/PgOrganizations.ts"
import * as PgShownOnceStore from "../../adapters/postgres/PgShownOnceStore.ts"
import * as TestDatabase from "../support/TestDatabase.ts"
import { describeShownOnceStore } from "./ShownOnceStore.contract.ts"

describeShownOnceStore(
  "PostgreSQL",
  Layer.mergeAll(PgShownOnceStore.layer, PgOrganizations.layer).pipe(Layer.provide(TestDatabase.layer))
)
