/**
 * The services the operator CLI's commands use, over DATABASE_URL or the embedded database
 * (shared with a running app): directory, keys, organizations, the sync engine, the audit log
 * and the dashboard's users, on a migrated schema. Imported only when a command needs the database.
 */
import { Layer } from "effect"
import * as Database from "../adapters/postgres/Database.ts"
import * as Migrations from "../adapters/postgres/Migrations.ts"
import * as PgAuditLog from "../adapters/postgres/PgAuditLog.ts"
import { AccountsLive, AdminLive } from "./Layers.ts"

export const layer = Layer.mergeAll(AdminLive, PgAuditLog.layer, AccountsLive).pipe(
  Layer.provideMerge(Migrations.layer.pipe(Layer.provideMerge(Database.layer)))
)
