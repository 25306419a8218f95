/** The `WebhookEndpointStore` contract on PostgreSQL, in a test database of its own. */
import { Layer } from "effect"
import * as PgWebhookDeliveryStore from "../../adapters/postgres/PgWebhookDeliveryStore.ts"
import * as PgWebhookEndpointStore from "../../adapters/postgres/PgWebhookEndpointStore.ts"
import * as PostgresHarness from "./PairStore.postgresHarness.ts"
import { describeWebhookEndpointStoreContract } from "./WebhookEndpointStore.contract.ts"

describeWebhookEndpointStoreContract(
  "PostgreSQL",
  Layer.merge(PgWebhookEndpointStore.layer, PgWebhookDeliveryStore.layer).pipe(
    Layer.provideMerge(PostgresHarness.layer)
  )
)
