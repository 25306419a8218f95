import { Layer } from "effect"
import * as PgApiKeyStore from "../../adapters/postgres/PgApiKeyStore.ts"
import * as PgOrganizations from "../../adapters/postgres/PgOrganizations.ts"
import * as TestDatabase from "../support/TestDatabase.ts"
import { describeApiKeyStore } from "./ApiKeyStore.contract.ts"

describeApiKeyStore(
  "PostgreSQL",
  Layer.mergeAll(PgApiKeyStore.layer, PgOrganizations.layer).pipe(Layer.provide(TestDatabase.layer))
)
