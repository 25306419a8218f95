/**
 * The services behind the HTTP routes, over PostgreSQL: the core `Receivables` on the Postgres
 * store, API-key verification and the audit log. Requires `SqlClient`; the rate limiter is chosen
 * by the caller (the app reads its policy from the environment).
 */
import { Layer } from "effect"
import * as PgApiKeys from "../adapters/postgres/PgApiKeys.ts"
import * as PgAuditLog from "../adapters/postgres/PgAuditLog.ts"
import * as PgReceivableStore from "../adapters/postgres/PgReceivableStore.ts"
import { Receivables } from "../core/services/Receivables.ts"

export const ServicesLive = Layer.mergeAll(
  Receivables.layer.pipe(Layer.provide(PgReceivableStore.layer)),
  PgApiKeys.layer,
  PgAuditLog.layer
)
