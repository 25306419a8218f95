import { Layer } from "effect"
import * as PgReceivableSearch from "../../adapters/postgres/PgReceivableSearch.ts"
import * as TestDatabase from "../support/TestDatabase.ts"
import { describeReceivableSearch } from "./ReceivableSearch.contract.ts"
import { seedSql } from "./ReceivableStore.seed.ts"

describeReceivableSearch(
  "PostgreSQL",
  Layer.merge(PgReceivableSearch.layer, seedSql).pipe(Layer.provide(TestDatabase.layer), Layer.orDie)
)
