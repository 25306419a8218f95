/** The `WebhookStore` contract on PostgreSQL, in a test database of its own. */
import { Layer } from "effect"
import * as PgWebhookStore from "../../adapters/postgres/PgWebhookStore.ts"
import * as PostgresHarness from "./PairStore.postgresHarness.ts"
import { describeWebhookStoreContract } from "./WebhookStore.contract.ts"

describeWebhookStoreContract("PostgreSQL", PgWebhookStore.layer.pipe(Layer.provideMerge(PostgresHarness.layer)))
