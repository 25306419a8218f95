/** Retries as a receiver sees them, with the PostgreSQL store, in a test database of its own. */
import { describeRetries } from "./Retries.kit.ts"
import { postgresStorage } from "./support/Services.ts"

describeRetries("PostgreSQL", postgresStorage)
