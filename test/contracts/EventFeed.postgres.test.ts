/** The `EventFeed` contract on PostgreSQL, in a test database of its own. */
import { describeEventFeedContract } from "./EventFeed.contract.ts"
import * as PostgresHarness from "./PairStore.postgresHarness.ts"

describeEventFeedContract("PostgreSQL", PostgresHarness.layer)
