/** The `WebhookOverview` contract on PostgreSQL, in a test database of its own. */
import { Layer } from "effect"
import * as PgWebhookOverview from "../../adapters/postgres/PgWebhookOverview.ts"
import { postgresStorage } from "../webhooks/support/Services.ts"
import { describeWebhookOverview } from "./WebhookOverview.contract.ts"

describeWebhookOverview("PostgreSQL", PgWebhookOverview.layer.pipe(Layer.provideMerge(postgresStorage)))
