/**
 * A pair's sync session over PostgreSQL, the apply phase of a sync: one transaction on a reserved
 * connection, opened by locking the integration row (so concurrent syncs of the pair queue up)
 * and, for a staged run, checking and holding the run's lease; committed by `finish`, which also
 * drops the run's lease and staging; a scope that closes without it rolls back. Only storage
 * lives here (the staged documents, lookups by key, set-based writes, the run's end, event
 * numbering and the planner-statistics upkeep); what to write is decided in core. Imports no
 * other adapter.
 *
 * Events get their feed sequence at the run's commit, in commit order (migrations 0009, 0013): the
 * run's record names its batch and count, and a deferred trigger takes the range from the
 * organization's counter as the transaction commits, so the next run of the organization to end
 * numbers after it. Nothing here holds a lock or a setting across transactions: the service can
 * run behind a pooler in transaction mode.
 */
import { randomBytes } from "node:crypto"
import { DateTime, Duration, Effect, type Scope, Semaphore } from "effect"
import { SqlClient } from "effect/sql"
import type { FetchedDocument, PairReceivable } from "../../core/receivables/domain/PairSync.ts"
import {
  type FinishedRun,
  LeaseLost,
  type Pair,
  type PairSession,
  type PairWrites,
  type StagedRun
} from "../../core/receivables/ports/PairStore.ts"
import { syncMarkStaleAfter } from "../../core/shared/domain/ListQuery.ts"
import { type PairWritesSql, pairWritesSql, type ReceivableRow, texts, toPairReceivable } from "./PgPairRows.ts"

/** Which tables a sync's creations grew by half since they were last analyzed. */
interface Growth {
  readonly receivables: boolean
  readonly integrations: boolean
}

// A random batch number, below 2^63 (PostgreSQL's bigint): event ids name it, and tell nothing.
const newBatch = () => randomBytes(8).readBigUInt64BE() >> 1n

const isRolledBack = (result: unknown): boolean =>
  typeof result === "object" && result !== null && "command" in result && result.command === "ROLLBACK"

/** Opens sessions; see `PairStore.session`. A run applied is added to `applied`, its lease and staging dropped. */
export const makeSessions = (applied: Set<string>) =>
  Effect.gen(function* () {
    const sql = yield* SqlClient.SqlClient
    const writesOf: PairWritesSql = pairWritesSql(sql)

    // The planner's statistics lag behind a bulk load (autovacuum looks once a minute). While they
    // say receivables is nearly empty, lookups by key scan an organization's rows; while
    // integrations has none, each new receivable's reference check reads every pair of its
    // debtor; sessions keep such plans. So after a sync that created receivables, a table whose
    // file has grown by half since it was last analyzed (and past 16 pages) is analyzed at once,
    // which also discards those plans. File sizes are exact at once (the run's last statement
    // reads them, saving a round trip per pair); activity statistics arrive up to a second late.
    // Only the columns of those lookups and references are analyzed: that costs a fraction of a
    // complete analysis and leaves the table due for autovacuum's, which the read path's plans
    // get a minute later. The events outbox, read by no sync or request, is left to autovacuum.
    const grownSinceAnalyzed = (table: string) => sql`(
    SELECT pg_relation_size(oid) / current_setting('block_size')::int >= greatest(16, 1.5 * relpages)
    FROM pg_class WHERE oid = ${table}::regclass)`
    const growth = sql`RETURNING ${grownSinceAnalyzed("receivables")} AS receivables,
    ${grownSinceAnalyzed("integrations")} AS integrations`
    const analyzing = yield* Semaphore.make(1)
    const refreshStatistics = (grown: Growth) =>
      analyzing
        .withPermitsIfAvailable(1)(
          Effect.gen(function* () {
            if (grown.receivables) {
              yield* sql`
              ANALYZE receivables (org_id, id, integration_id, document_key), receivable_history (org_id, receivable_id)`
            }
            if (grown.integrations) yield* sql`ANALYZE integrations`
          })
        )
        .pipe(Effect.catchCause((cause) => Effect.logWarning("could not refresh table statistics", cause)))

    return Effect.fnUntraced(function* (
      integration: Pair,
      worker: string,
      startedAt: DateTime.Utc,
      run?: StagedRun
    ): Effect.fn.Return<PairSession, LeaseLost, Scope.Scope> {
      let grown: Growth | undefined
      // Registered first, so it runs last: statistics are refreshed once the connection is handed back.
      yield* Effect.addFinalizer(() =>
        Effect.suspend(() => (grown === undefined ? Effect.void : refreshStatistics(grown)))
      )
      const connection = yield* Effect.orDie(sql.reserve)
      // Statements on the reserved connection: inside the transaction once it has begun, else on their own.
      const inTransaction = <A, E, R>(effect: Effect.Effect<A, E, R>) =>
        Effect.orDie(Effect.provideService(effect, sql.transactionService, [connection, 0] as const))
      let committed = false
      // The pair is marked in flight, by the database clock and committed, before the transaction
      // begins: every row the sync writes then carries a time at or after the mark, and a reader of
      // the receivables list knows up to when it has seen everything (`next_verified_since`).
      // Syncs of one pair can overlap between their marks and their row locks, so the row counts
      // them: the first sets the mark, the others keep it (earlier than any of their writes), and
      // only the last to end clears it; a first sync's end can then never clear the mark of a second
      // that has yet to write. The end counts itself out in its last statement; a run that ends
      // unfinished does so after its rollback, on the pair's row, so behind a sync of the pair that
      // has locked it meanwhile (as the failure's record is). A crashed run's count is never taken
      // back: its mark goes stale after the longest deadline, and the next sync to mark the pair
      // starts the count anew. The mark's commit does not wait for the disk (a mark lost in a crash
      // went with its sync).

      // A sync counting itself out of its pair's syncs in flight; the last one clears the mark.
      const countOut = sql`syncs_in_flight = greatest(syncs_in_flight - 1, 0),
      sync_started_at = CASE WHEN syncs_in_flight > 1 THEN sync_started_at END`
      const countedOut = sql`UPDATE integrations SET ${countOut} WHERE id = ${integration.id}`
      const stale = sql`clock_timestamp() - ${Duration.toMillis(syncMarkStaleAfter)} * interval '1 millisecond'`
      const joins = sql`syncs_in_flight > 0 AND sync_started_at >= ${stale}`
      yield* Effect.acquireRelease(
        inTransaction(sql<{ marked: boolean }>`
        UPDATE integrations SET
          sync_started_at = CASE WHEN ${joins} THEN sync_started_at ELSE clock_timestamp() END,
          syncs_in_flight = CASE WHEN ${joins} THEN syncs_in_flight + 1 ELSE 1 END
        FROM (SELECT set_config('synchronous_commit', 'off', true)) AS quick
        WHERE id = ${integration.id}
        RETURNING true AS marked`),
        ([row]) => (committed || row === undefined ? Effect.void : Effect.ignore(inTransaction(countedOut)))
      )
      let open = false
      yield* Effect.acquireRelease(
        Effect.orDie(connection.execute("BEGIN", [], undefined)).pipe(
          Effect.andThen(
            Effect.sync(() => {
              open = true
            })
          )
        ),
        // A connection killed mid-sync cannot roll back, and needs not: its transaction died with it.
        () => (open ? Effect.ignore(connection.execute("ROLLBACK", [], undefined)) : Effect.void)
      )

      // The pair's lock: a concurrent sync of the same pair waits here, then reads our result.
      // The commit does not wait for its WAL flush (`synchronous_commit` off for this transaction
      // only): a crash can lose the last fraction of a second of syncs, never part of one, and a
      // lost sync also loses its `next_sync_at`, so the pair is due again and the portal, the source
      // of truth, is read again. API key, audit and operator writes keep durable commits.
      // The transaction's statements keep one plan each (`plan_cache_mode`): they read and write by
      // key whatever their parameters, and planning the last chunk's writes anew for every pair
      // cost a resync more PostgreSQL time than updating its rows.
      // A pair that has never run and has no receivables needs no lookup until something is
      // written. `last_run_at` is read from the row as locked, so a sync that committed while we
      // waited for the lock counts; the subquery sees receivables written by other means.
      // One time for the whole sync, from the database clock once the lock is granted: every row it
      // changes shows the same updated_at, at or after the pair's in-flight mark.
      const [lock] = yield* inTransaction(sql<{ empty: boolean; at: Date }>`
      SELECT set_config('synchronous_commit', 'off', true), set_config('plan_cache_mode', 'force_generic_plan', true),
        i.last_run_at IS NULL AND NOT EXISTS (
          SELECT 1 FROM receivables r WHERE r.org_id = i.org_id AND r.integration_id = i.id) AS empty,
        clock_timestamp() AS at
      FROM integrations i WHERE i.id = ${integration.id} FOR UPDATE`)
      let empty = lock?.empty === true
      const at = lock?.at ?? DateTime.toDateUtc(yield* DateTime.now)
      // A run's lease is checked under the pair's lock, so that no other sync of the pair can have
      // applied since: one that ran out is never applied. Held from here to the commit, it cannot
      // be swept away, nor its staging, even if it runs out meanwhile.
      if (run !== undefined) {
        const [lease] = yield* inTransaction(sql<{ held: boolean }>`
        SELECT true AS held FROM sync_leases WHERE run_id = ${run.lease.id} AND expires_at >= clock_timestamp()
        FOR KEY SHARE`)
        if (lease === undefined) return yield* new LeaseLost({ runId: run.lease.id })
      }
      const batch = newBatch()
      let eventsWritten = 0
      // A chunk's writes wait for the next lookup (which must see them) or go with the run's end:
      // one round trip fewer per pair, and one statement for a pair of one chunk.
      let pending: { readonly writes: PairWrites; readonly firstOrdinal: number } | undefined
      let finished = false
      const statementsOf = (chunk: typeof pending) =>
        chunk === undefined ? [] : writesOf(integration, chunk.writes, at, { batch, firstOrdinal: chunk.firstOrdinal })
      const flush = Effect.suspend(() => {
        const statements = statementsOf(pending)
        pending = undefined
        return statements.length === 0 ? Effect.void : inTransaction(sql`WITH ${sql.csv(statements)} SELECT`)
      })
      const stillOpen = Effect.suspend(() =>
        finished ? Effect.die(new Error(`the sync session of pair ${integration.id} is already finished`)) : Effect.void
      )

      const staged = (from: number, limit: number): Effect.Effect<ReadonlyArray<FetchedDocument>> =>
        Effect.gen(function* () {
          yield* stillOpen
          if (run === undefined) return []
          const rows = yield* inTransaction(sql<{ document: string }>`
          SELECT document FROM sync_staging
          WHERE run_id = ${run.lease.id} AND ordinal >= ${from} AND ordinal < ${from + limit}
          ORDER BY ordinal`)
          return rows.map((row) => JSON.parse(row.document) as FetchedDocument)
        })

      const receivablesByKeys = (keys: ReadonlyArray<string>): Effect.Effect<ReadonlyArray<PairReceivable>> =>
        Effect.gen(function* () {
          yield* stillOpen
          if (empty) return []
          yield* flush
          const rows = yield* inTransaction(sql<ReceivableRow>`
          SELECT id, document_key, vendor_receivable_id, amount_cents, currency, receivable_date, due_date, status,
            portal_status, po_number, metadata, detected_at
          FROM receivables
          WHERE org_id = ${integration.orgId} AND integration_id = ${integration.id}
            AND document_key = ANY(${texts(keys)}::text[])`)
          return rows.map(toPairReceivable)
        })

      const writeChunk = (writes: PairWrites) =>
        Effect.gen(function* () {
          yield* stillOpen
          yield* flush
          if (writes.inserts.length + writes.updates.length + writes.events.length === 0) return
          pending = { writes, firstOrdinal: eventsWritten + 1 }
          eventsWritten += writes.events.length
          empty = false
        })

      // The run's end: the pair's next sync, its run record (with its events' batch and count, which
      // the commit numbers) and the last chunk's writes in one statement; after creations, it also
      // answers which tables grew (see above). Then the commit, which a deadline cannot cut in two:
      // it either happened or it did not. The counter's row is locked for the commit alone, so the
      // syncs of an organization do not end one at a time.
      const finish = Effect.fn("PgPairStore.finish")(function* (ended: FinishedRun) {
        yield* stillOpen
        finished = true
        const writes = statementsOf(pending)
        pending = undefined
        const dropRun =
          run === undefined
            ? []
            : [
                sql`lease_dropped AS (DELETE FROM sync_leases WHERE run_id = ${run.lease.id})`,
                sql`staging_dropped AS (DELETE FROM sync_staging WHERE run_id = ${run.lease.id})`
              ]
        // The commit stays fast with events too: the feed answers none before it is durable (`PgEventFeed`).
        const [row] = yield* inTransaction(sql<Growth>`
        WITH ${sql.csv([
          ...writes,
          ...dropRun,
          sql`finished AS (
            UPDATE integrations SET next_sync_at = ${DateTime.toDateUtc(ended.nextSyncAt)}, last_run_at = ${at},
              last_outcome = 'succeeded', last_error = NULL, consecutive_failures = 0,
              lease_owner = NULL, lease_expires_at = NULL, ${countOut}
            WHERE id = ${integration.id})`
        ])}
        INSERT INTO sync_runs (org_id, integration_id, worker, started_at, fetched_at, finished_at, committed_at,
          outcome, fetched, created, updated, unchanged, quarantined, quarantine, event_batch, events)
        SELECT ${integration.orgId}, ${integration.id}, ${worker}, ${DateTime.toDateUtc(startedAt)},
          ${run === undefined ? null : DateTime.toDateUtc(run.fetchedAt)}::timestamptz, ended.at, ended.at,
          'succeeded', ${ended.counts.fetched}, ${ended.counts.created}, ${ended.counts.updated},
          ${ended.counts.unchanged}, ${ended.counts.quarantined}, ${JSON.stringify(ended.quarantine)}::jsonb,
          ${eventsWritten > 0 ? batch.toString() : null}::bigint, ${eventsWritten}
        -- One reading of the clock: two calls of clock_timestamp() in a row differ.
        FROM (SELECT clock_timestamp() AS at) ended
        ${ended.counts.created > 0 ? growth : sql``}`)
        const result = yield* Effect.uninterruptible(
          Effect.orDie(connection.executeRaw("COMMIT", [])).pipe(
            Effect.ensuring(
              Effect.sync(() => {
                open = false
              })
            )
          )
        )
        if (isRolledBack(result)) return yield* Effect.die(new Error("COMMIT rolled back an aborted transaction"))
        committed = true
        if (run !== undefined) applied.add(run.lease.id)
        grown = row
      })

      return {
        at: DateTime.fromDateUnsafe(at),
        staged,
        receivablesByKeys,
        writeChunk,
        finish
      } satisfies PairSession
    })
  })
