/** What a receiver sees, with the PostgreSQL store, in a test database of its own. */
import { describeDelivery } from "./Delivery.kit.ts"
import { postgresStorage } from "./support/Services.ts"

describeDelivery("PostgreSQL", postgresStorage)
