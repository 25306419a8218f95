/**
 * Probes for load balancers and orchestrators, public and never audited. `GET /health`: the
 * process is up (touches nothing). `GET /ready`: the database answers and its schema is at the
 * migration this build expects; 503 otherwise, with the reason.
 */
import { Effect } from "effect"
import { HttpRouter, HttpServerResponse } from "effect/http"
import { SqlClient } from "effect/sql"
import { latestMigrationId, migrationsTable } from "../postgres/Migrations.ts"

const notReady = (reason: string) => HttpServerResponse.jsonUnsafe({ status: "not ready", reason }, { status: 503 })

export const routes = HttpRouter.use(
  Effect.fn(function* (router) {
    const sql = yield* SqlClient.SqlClient
    yield* router.add("GET", "/health", Effect.succeed(HttpServerResponse.jsonUnsafe({ status: "ok" })))
    yield* router.add(
      "GET",
      "/ready",
      sql<{ id: number | null }>`SELECT max(migration_id) AS id FROM ${sql(migrationsTable)}`.pipe(
        Effect.timeout("2 seconds"),
        Effect.map(([row]) =>
          row?.id === latestMigrationId
            ? HttpServerResponse.jsonUnsafe({ status: "ready" })
            : notReady(
                `the database schema is at migration ${row?.id ?? "none"}, this build needs ${latestMigrationId}`
              )
        ),
        Effect.catchCause(() => Effect.succeed(notReady("the database does not answer")))
      )
    )
  })
)
