import { Layer } from "effect"
import * as PgAuditLog from "../../adapters/postgres/PgAuditLog.ts"
import * as TestDatabase from "../support/TestDatabase.ts"
import { describeAuditLog } from "./AuditLog.contract.ts"

describeAuditLog("PostgreSQL", PgAuditLog.layer.pipe(Layer.provide(TestDatabase.layer)))
