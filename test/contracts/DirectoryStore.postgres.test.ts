import { Layer } from "effect"
import * as PgDirectoryStore from "../../adapters/postgres/PgDirectoryStore.ts"
import * as PgOrganizations from "../../adapters/postgres/PgOrganizations.ts"
import * as TestDatabase from "../support/TestDatabase.ts"
import { describeDirectoryStore } from "./DirectoryStore.contract.ts"

describeDirectoryStore(
  "PostgreSQL",
  Layer.mergeAll(PgDirectoryStore.layer, PgOrganizations.layer).pipe(Layer.provide(TestDatabase.layer))
)
