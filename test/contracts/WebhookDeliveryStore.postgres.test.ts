/** The `WebhookDeliveryStore` contract on PostgreSQL, in a test database of its own. */
import { Layer } from "effect"
import * as PgWebhookDeliveryStore from "../../adapters/postgres/PgWebhookDeliveryStore.ts"
import * as PgWebhookEndpointStore from "../../adapters/postgres/PgWebhookEndpointStore.ts"
import * as PostgresHarness from "./PairStore.postgresHarness.ts"
import { describeWebhookDeliveryStoreContract } from "./WebhookDeliveryStore.contract.ts"

describeWebhookDeliveryStoreContract(
  "PostgreSQL",
  Layer.merge(PgWebhookEndpointStore.layer, PgWebhookDeliveryStore.layer).pipe(
    Layer.provideMerge(PostgresHarness.layer)
  )
)
