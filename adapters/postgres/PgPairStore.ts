/**
 * `PairStore` over PostgreSQL. Due pairs are claimed with `FOR UPDATE SKIP LOCKED` and a lease,
 * so workers never wait on each other; a run fetches under a lease of its own, staging with no
 * transaction open (`PgPairRuns.ts`), and applies in a session, one short transaction holding the
 * integration row's lock (`PgPairSession.ts`), so readers see all of a sync or none of it.
 * Storage only: how a sync is chunked and planned is decided in core.
 */
import { DateTime, Duration, Effect, Layer } from "effect"
import { SqlClient } from "effect/sql"
import {
  type FailedRun,
  type Pair,
  PairNotFound,
  PairStore,
  StoreUnavailable
} from "../../core/receivables/ports/PairStore.ts"
import type { PairId } from "../../core/shared/domain/Ids.ts"
import { type IntegrationRow, toIntegration } from "./PgPairRows.ts"
import { makeRuns } from "./PgPairRuns.ts"
import { makeSessions } from "./PgPairSession.ts"

export const layer = Layer.effect(
  PairStore,
  Effect.gen(function* () {
    const sql = yield* SqlClient.SqlClient
    // Runs applied by their sessions: their leases and staging are gone, nothing to drop at their end.
    const applied = new Set<string>()
    const session = yield* makeSessions(applied)
    const startRun = yield* makeRuns(applied)

    const selectIntegration = sql`
    SELECT i.id, i.org_id, i.vendor_id, v.name AS vendor_name, i.debtor_id, d.name AS debtor_name, i.connector,
      i.config, extract(epoch FROM i.sync_interval) * 1000 AS interval_ms,
        extract(epoch FROM i.sync_deadline) * 1000 AS deadline_ms, i.consecutive_failures
    FROM integrations i JOIN vendors v ON v.id = i.vendor_id JOIN debtors d ON d.id = i.debtor_id`

    const get = Effect.fn("PgPairStore.get")(function* (id: string) {
      const rows = /^[0-9a-f-]{36}$/i.test(id)
        ? yield* sql<IntegrationRow>`${selectIntegration} WHERE i.id = ${id}`.pipe(Effect.orDie)
        : []
      if (rows[0] === undefined) return yield* new PairNotFound({ id })
      return toIntegration(rows[0])
    })

    // A claim commits without waiting for its WAL flush (as syncs do, see below): one lost in a
    // crash loses only its leases, and the pairs are claimed again. The longest overdue come first.
    const claimDue = Effect.fn("PgPairStore.claimDue")(function* (
      worker: string,
      limit: number,
      lease: Duration.Duration
    ) {
      const rows = yield* sql<IntegrationRow>`
      WITH due AS (
        SELECT id FROM integrations
        WHERE paused_at IS NULL AND next_sync_at <= now()
          AND (lease_expires_at IS NULL OR lease_expires_at < now())
        ORDER BY next_sync_at
        LIMIT ${limit}
        FOR UPDATE SKIP LOCKED
      ),
      claimed AS (
        UPDATE integrations i SET lease_owner = ${worker},
          lease_expires_at = now() + ${Duration.toMillis(lease)} * interval '1 millisecond'
        FROM due WHERE i.id = due.id
        RETURNING i.*
      )
      SELECT i.id, i.org_id, i.vendor_id, v.name AS vendor_name, i.debtor_id, d.name AS debtor_name, i.connector,
        i.config, extract(epoch FROM i.sync_interval) * 1000 AS interval_ms,
        extract(epoch FROM i.sync_deadline) * 1000 AS deadline_ms, i.consecutive_failures
      FROM claimed i JOIN vendors v ON v.id = i.vendor_id JOIN debtors d ON d.id = i.debtor_id
      WHERE set_config('synchronous_commit', 'off', true) IS NOT NULL
      ORDER BY i.next_sync_at, i.id`.pipe(Effect.orDie)
      return rows.map(toIntegration)
    })

    const recordFailure = Effect.fn("PgPairStore.recordFailure")(function* (integration: Pair, options: FailedRun) {
      yield* sql
        .withTransaction(
          Effect.gen(function* () {
            yield* sql`
          UPDATE integrations SET next_sync_at = ${DateTime.toDateUtc(options.retryAt)}, last_run_at = now(),
            last_outcome = 'failed', last_error = ${options.error},
            consecutive_failures = consecutive_failures + 1, lease_owner = NULL, lease_expires_at = NULL
          WHERE id = ${integration.id}`
            yield* sql`
          INSERT INTO sync_runs (org_id, integration_id, worker, started_at, finished_at, outcome, error,
            portal_retry_at)
          VALUES (${integration.orgId}, ${integration.id}, ${options.worker}, ${DateTime.toDateUtc(options.startedAt)},
            now(), 'failed', ${options.error},
            ${options.portalRetryAt === undefined ? null : DateTime.toDateUtc(options.portalRetryAt)})`
          })
        )
        .pipe(
          // Only a database that cannot be reached is worth asking again; any other refusal is a fault.
          Effect.catchTag("SqlError", (error) =>
            error.cause._tag === "ConnectionError"
              ? Effect.fail(new StoreUnavailable({ message: error.message }))
              : Effect.die(error)
          )
        )
    })

    const renewClaims = Effect.fn("PgPairStore.renewClaims")(function* (
      worker: string,
      ids: ReadonlyArray<PairId>,
      lease: Duration.Duration
    ) {
      if (ids.length === 0) return
      yield* sql`
        UPDATE integrations
        SET lease_expires_at = clock_timestamp() + ${Duration.toMillis(lease)} * interval '1 millisecond'
        WHERE id IN ${sql.in(ids)} AND lease_owner = ${worker}`.pipe(Effect.orDie)
    })

    const releaseClaims = Effect.fn("PgPairStore.releaseClaims")(function* (
      worker: string,
      ids: ReadonlyArray<PairId>
    ) {
      if (ids.length === 0) return
      yield* sql`
        UPDATE integrations SET lease_owner = NULL, lease_expires_at = NULL
        WHERE id IN ${sql.in(ids)} AND lease_owner = ${worker}`.pipe(Effect.orDie)
    })

    const countOverdue = (lateBy: Duration.Duration) =>
      sql<{ n: number }>`
        SELECT count(*)::int AS n FROM integrations
        WHERE paused_at IS NULL AND next_sync_at < now() - ${Duration.toMillis(lateBy)} * interval '1 millisecond'`.pipe(
        Effect.map(([row]) => row?.n ?? 0),
        Effect.orDie
      )

    return PairStore.of({
      claimDue,
      renewClaims,
      get,
      startRun,
      session,
      recordFailure,
      releaseClaims,
      countOverdue
    })
  })
)
