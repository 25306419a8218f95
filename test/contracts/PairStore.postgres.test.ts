/** The `PairStore` contract on PostgreSQL, in a test database of its own. */
import { describePairStoreContract } from "./PairStore.contract.ts"
import * as PostgresHarness from "./PairStore.postgresHarness.ts"

describePairStoreContract("PostgreSQL", PostgresHarness.layer)
