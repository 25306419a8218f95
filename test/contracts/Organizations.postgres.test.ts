import { Layer } from "effect"
import * as PgOrganizations from "../../adapters/postgres/PgOrganizations.ts"
import * as TestDatabase from "../support/TestDatabase.ts"
import { describeOrganizations } from "./Organizations.contract.ts"

describeOrganizations("PostgreSQL", PgOrganizations.layer.pipe(Layer.provide(TestDatabase.layer)))
