/**
 * The services behind the HTTP routes, over PostgreSQL: the core `Receivables` on the Postgres
 * store, and API-key verification. Requires `SqlClient`.
 */
import { Layer } from "effect"
import * as PgApiKeys from "../adapters/postgres/PgApiKeys.ts"
import * as PgReceivableStore from "../adapters/postgres/PgReceivableStore.ts"
import { Receivables } from "../core/services/Receivables.ts"

export const ServicesLive = Layer.mergeAll(
  Receivables.layer.pipe(Layer.provide(PgReceivableStore.layer)),
  PgApiKeys.layer
)
