import { Layer } from "effect"
import * as PgApiKeyStore from "../../adapters/postgres/PgApiKeyStore.ts"
import * as PgAuditLog from "../../adapters/postgres/PgAuditLog.ts"
import * as PgKeyUsageStore from "../../adapters/postgres/PgKeyUsageStore.ts"
import * as PgOrganizations from "../../adapters/postgres/PgOrganizations.ts"
import * as TestDatabase from "../support/TestDatabase.ts"
import { describeKeyUsageStore } from "./KeyUsageStore.contract.ts"

describeKeyUsageStore(
  "PostgreSQL",
  Layer.mergeAll(PgKeyUsageStore.layer, PgApiKeyStore.layer, PgOrganizations.layer, PgAuditLog.layer).pipe(
    Layer.provide(TestDatabase.layer)
  )
)
