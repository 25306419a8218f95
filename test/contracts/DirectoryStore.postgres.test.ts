import { DateTime, Effect, Layer } from "effect"
import { SqlClient } from "effect/sql"
import * as PgDirectoryStore from "../../adapters/postgres/PgDirectoryStore.ts"
import * as PgOrganizations from "../../adapters/postgres/PgOrganizations.ts"
import * as TestDatabase from "../support/TestDatabase.ts"
import { describeDirectoryStore } from "./DirectoryStore.contract.ts"

describeDirectoryStore(
  "PostgreSQL",
  Layer.mergeAll(PgDirectoryStore.layer, PgOrganizations.layer).pipe(Layer.provideMerge(TestDatabase.layer)),
  // As `PgPairSession` records a finished run (the core's `Quarantined` list as jsonb) and
  // `PgPairStore` a failed one (with its portal's time).
  (pair, run) =>
    Effect.flatMap(Effect.service(SqlClient.SqlClient), (sql) =>
      sql`
        INSERT INTO sync_runs (org_id, integration_id, worker, started_at, finished_at, outcome, fetched, created,
          updated, unchanged, quarantined, quarantine, error, portal_retry_at)
        VALUES (${pair.orgId}, ${pair.id}, 'contract', ${DateTime.toDateUtc(run.startedAt)},
          ${run.finishedAt === null ? null : DateTime.toDateUtc(run.finishedAt)}, ${run.outcome}, ${run.fetched},
          ${run.created}, ${run.updated}, ${run.unchanged}, ${run.quarantined}, ${JSON.stringify(run.quarantine)}::jsonb,
          ${run.error}, ${run.portalRetryAt === undefined ? null : DateTime.toDateUtc(run.portalRetryAt)})`.pipe(
        Effect.asVoid,
        Effect.orDie
      )
    )
)
