/** What a receiver sees, with the PostgreSQL store, in a test database of its own. */
import { Layer } from "effect"
import * as PgWebhookStore from "../../adapters/postgres/PgWebhookStore.ts"
import * as PostgresHarness from "../contracts/PairStore.postgresHarness.ts"
import { describeDelivery } from "./Delivery.kit.ts"

describeDelivery("PostgreSQL", PgWebhookStore.layer.pipe(Layer.provideMerge(PostgresHarness.layer)))
