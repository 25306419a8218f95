/**
 * `PairStore` over PostgreSQL. A pair's sync is one transaction: lock the integration row (so
 * concurrent syncs of the pair queue up), read its receivables, plan, then write receivables,
 * history, events, the pair's next sync time and the run's record, each as one set-based
 * statement. Readers see all of a sync or none of it. Due pairs are claimed with
 * `FOR UPDATE SKIP LOCKED` and a lease, so workers never wait on each other.
 */
import { PgTypes } from "@effect/sql-pg"
import { DateTime, Duration, Effect, Layer, Result, Semaphore, Stream } from "effect"
import { SqlClient, type Statement } from "effect/sql"
import type { DebtorId, IntegrationId, OrgId, ReceivableId, VendorId } from "../../core/domain/Ids.ts"
import {
  type FetchedDocument,
  isStorableText,
  type PairReceivable,
  type PairSyncPlan,
  type Quarantined
} from "../../core/domain/PairSync.ts"
import type { ReceivableState } from "../../core/domain/Resources.ts"
import {
  type FailedRun,
  type Integration,
  PairNotFound,
  PairStore,
  type RunCounts,
  type SyncPairOptions
} from "../../core/ports/PairStore.ts"
import type { PairRow, ReceivableFieldsRow } from "./Rows.ts"

interface IntegrationRow extends PairRow {
  readonly config: unknown
}

interface ReceivableRow extends ReceivableFieldsRow {
  readonly id: string
  readonly document_key: string
  readonly metadata: Record<string, string>
}

const toIntegration = (row: IntegrationRow): Integration => ({
  id: row.id as IntegrationId,
  orgId: row.org_id as OrgId,
  refs: {
    vendor: { id: row.vendor_id as VendorId, name: row.vendor_name },
    debtor: { id: row.debtor_id as DebtorId, name: row.debtor_name }
  },
  connector: row.connector,
  config: row.config,
  interval: Duration.millis(Number(row.interval_ms)),
  deadline: row.deadline_ms === null ? undefined : Duration.millis(Number(row.deadline_ms)),
  consecutiveFailures: row.consecutive_failures
})

const toPairReceivable = (row: ReceivableRow): PairReceivable => ({
  id: row.id as ReceivableId,
  documentKey: row.document_key,
  state: {
    vendorReceivableId: row.vendor_receivable_id,
    amountCents: Number(row.amount_cents),
    currency: row.currency as ReceivableState["currency"],
    receivableDate: row.receivable_date as ReceivableState["receivableDate"],
    dueDate: row.due_date as ReceivableState["dueDate"],
    status: row.status as ReceivableState["status"],
    portalStatus: row.portal_status,
    poNumber: row.po_number,
    metadata: row.metadata
  }
})

// Rows travel as one binary array per column, unnested side by side: PostgreSQL copies each value
// in place instead of parsing a JSON document per row (a sixth of its time in a first sync went
// there); only the values that are JSON themselves are read as such: metadata and event payloads
// (`json`) are checked, history's changes (`jsonb`) are parsed.
const column = (values: ReadonlyArray<unknown>, element: number) => Result.getOrThrow(PgTypes.array(values, element))
const texts = (values: ReadonlyArray<string | null>) => column(values, PgTypes.OID.text)
const bigints = (values: ReadonlyArray<number>) => column(values.map(BigInt), PgTypes.OID.int8)
const dates = (values: ReadonlyArray<string | null>) => column(values, PgTypes.OID.date)
const timestamps = (values: ReadonlyArray<Date>) => column(values, PgTypes.OID.timestamptz)
const jsons = (values: ReadonlyArray<unknown>) => column(values, PgTypes.OID.json)
const jsonbs = (values: ReadonlyArray<unknown>) => column(values, PgTypes.OID.jsonb)

/** Which tables a sync's creations grew by half since they were last analyzed. */
interface Growth {
  readonly receivables: boolean
  readonly integrations: boolean
}

/** Documents planned and written together; the memory a sync needs does not grow past it. */
const defaultChunkSize = 2_000

/** Quarantine reasons kept on a run's record; the count is always complete. */
const quarantineKept = 100

interface Totals {
  readonly counts: RunCounts
  readonly quarantine: ReadonlyArray<Quarantined>
}

/** What a sync has planned so far, and the last chunk's plan, not yet written. */
interface Progress {
  readonly totals: Totals
  readonly pending: PairSyncPlan | undefined
  readonly chunks: number
  /** The first chunk's document keys, kept until a second chunk needs them recorded. */
  readonly firstKeys: ReadonlyArray<string>
}

const emptyTotals: Totals = {
  counts: { fetched: 0, created: 0, updated: 0, unchanged: 0, quarantined: 0 },
  quarantine: []
}

const addTotals = (totals: Totals, plan: PairSyncPlan): Totals => ({
  counts: {
    fetched: totals.counts.fetched + plan.fetched,
    created: totals.counts.created + plan.inserts.length,
    updated: totals.counts.updated + plan.updates.length,
    unchanged: totals.counts.unchanged + plan.unchanged,
    quarantined: totals.counts.quarantined + plan.quarantined.length
  },
  quarantine:
    totals.quarantine.length >= quarantineKept
      ? totals.quarantine
      : [...totals.quarantine, ...plan.quarantined].slice(0, quarantineKept)
})

/** The store, planning and writing `chunkSize` documents at a time. */
export const layerWith = (chunkSize: number) =>
  Layer.effect(
    PairStore,
    Effect.gen(function* () {
      const sql = yield* SqlClient.SqlClient

      // A receivable's columns as the rows `r` of a statement.
      const receivableRows = (rows: ReadonlyArray<PairReceivable>) => {
        const states = rows.map((r) => r.state)
        return sql`unnest(
          ${texts(rows.map((r) => r.id))}::text[], ${texts(rows.map((r) => r.documentKey))}::text[],
          ${texts(states.map((s) => s.vendorReceivableId))}::text[],
          ${bigints(states.map((s) => s.amountCents))}::bigint[], ${texts(states.map((s) => s.currency))}::text[],
          ${dates(states.map((s) => s.receivableDate))}::date[], ${dates(states.map((s) => s.dueDate))}::date[],
          ${texts(states.map((s) => s.status))}::text[], ${texts(states.map((s) => s.portalStatus))}::text[],
          ${texts(states.map((s) => s.poNumber))}::text[], ${jsons(states.map((s) => s.metadata))}::json[]
        ) AS r(id, document_key, vendor_receivable_id, amount_cents, currency, receivable_date, due_date, status,
          portal_status, po_number, metadata)`
      }

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
      // crash loses only its leases, and the pairs are claimed again.
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
        WHERE set_config('synchronous_commit', 'off', true) IS NOT NULL`.pipe(Effect.orDie)
        return rows.map(toIntegration)
      })

      // A chunk's whole plan as the common table expressions of one statement (one round trip):
      // new receivables, changed ones, their history and the events; only the parts the plan
      // has. History's reference to its receivable is checked at the statement's end.
      const planWrites = (integration: Integration, plan: PairSyncPlan, at: Date) => {
        const org = integration.orgId
        const writes: Array<Statement.Fragment> = []
        if (plan.inserts.length > 0) {
          writes.push(sql`inserted AS (
            INSERT INTO receivables (org_id, id, integration_id, vendor_id, debtor_id, document_key, vendor_receivable_id,
              amount_cents, currency, receivable_date, due_date, status, portal_status, po_number, metadata,
              detected_at, updated_at)
            SELECT ${org}, r.id, ${integration.id}, ${integration.refs.vendor.id}, ${integration.refs.debtor.id},
              r.document_key, r.vendor_receivable_id, r.amount_cents, r.currency, r.receivable_date, r.due_date,
              r.status, r.portal_status, r.po_number, r.metadata, ${at}, ${at}
            FROM ${receivableRows(plan.inserts)})`)
        }
        if (plan.updates.length > 0) {
          writes.push(sql`updated AS (
            UPDATE receivables p SET vendor_receivable_id = r.vendor_receivable_id, amount_cents = r.amount_cents,
              currency = r.currency, receivable_date = r.receivable_date, due_date = r.due_date, status = r.status,
              portal_status = r.portal_status, po_number = r.po_number, metadata = r.metadata, updated_at = ${at}
            FROM ${receivableRows(plan.updates)}
            WHERE p.org_id = ${org} AND p.id = r.id)`)
          writes.push(sql`history AS (
            INSERT INTO receivable_history (org_id, receivable_id, changed_at, changes)
            SELECT ${org}, h.id, ${at}, h.changes
            FROM unnest(${texts(plan.updates.map((u) => u.id))}::text[],
              ${jsonbs(plan.updates.map((u) => u.history.changes))}::jsonb[]) AS h(id, changes))`)
        }
        if (plan.events.length > 0) {
          writes.push(sql`events AS (
            INSERT INTO events (id, org_id, type, receivable_id, created_at, data)
            SELECT e.id, ${org}, e.type, e.receivable_id, e.created_at, e.data
            FROM unnest(
              ${texts(plan.events.map((e) => e.id))}::text[], ${texts(plan.events.map((e) => e.type))}::text[],
              ${texts(plan.events.map((e) => e.receivableId))}::text[],
              ${timestamps(plan.events.map((e) => DateTime.toDateUtc(e.createdAt)))}::timestamptz[],
              ${jsons(plan.events.map((e) => e.data))}::json[]
            ) AS e(id, type, receivable_id, created_at, data))`)
        }
        return writes
      }

      const writePlan = (integration: Integration, plan: PairSyncPlan, at: Date) => {
        const writes = planWrites(integration, plan, at)
        return writes.length === 0 ? Effect.void : Effect.asVoid(sql`WITH ${sql.csv(writes)} SELECT`)
      }

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
      const refreshStatistics = (grown: Growth | undefined) =>
        analyzing
          .withPermitsIfAvailable(1)(
            Effect.gen(function* () {
              if (grown?.receivables === true) {
                yield* sql`
                  ANALYZE receivables (org_id, id, integration_id, document_key), receivable_history (org_id, receivable_id)`
              }
              if (grown?.integrations === true) yield* sql`ANALYZE integrations`
            })
          )
          .pipe(Effect.catchCause((cause) => Effect.logWarning("could not refresh table statistics", cause)))

      // The run's end: the pair's next sync, its run record, and the writes of its last chunk,
      // all in one statement; after creations, it also answers which tables grew (see above).
      const finishRun = <E>(
        integration: Integration,
        options: SyncPairOptions<E>,
        at: Date,
        totals: Totals,
        lastPlan: PairSyncPlan | undefined
      ) => {
        const writes = lastPlan === undefined ? [] : planWrites(integration, lastPlan, at)
        return sql`
          WITH ${sql.csv([
            ...writes,
            sql`finished AS (
              UPDATE integrations SET next_sync_at = ${DateTime.toDateUtc(options.nextSyncAt)}, last_run_at = ${at},
                last_outcome = 'succeeded', last_error = NULL, consecutive_failures = 0,
                lease_owner = NULL, lease_expires_at = NULL
              WHERE id = ${integration.id})`
          ])}
          INSERT INTO sync_runs (org_id, integration_id, worker, started_at, finished_at, outcome, fetched, created,
            updated, unchanged, quarantined, quarantine)
          VALUES (${integration.orgId}, ${integration.id}, ${options.worker}, ${DateTime.toDateUtc(options.startedAt)},
            ${at}, 'succeeded', ${totals.counts.fetched}, ${totals.counts.created}, ${totals.counts.updated},
            ${totals.counts.unchanged}, ${totals.counts.quarantined}, ${JSON.stringify(totals.quarantine)}::jsonb)
          ${totals.counts.created > 0 ? growth : sql``}`.pipe(Effect.map(([row]) => row as Growth | undefined))
      }

      const currentReceivables = (integration: Integration, keys: ReadonlyArray<string>) =>
        sql<ReceivableRow>`
          SELECT id, document_key, vendor_receivable_id, amount_cents, currency, receivable_date, due_date, status,
            portal_status, po_number, metadata
          FROM receivables
          WHERE org_id = ${integration.orgId} AND integration_id = ${integration.id}
            AND document_key = ANY(${texts(keys)}::text[])`.pipe(Effect.map((rows) => rows.map(toPairReceivable)))

      // A key repeated in a portal's answer is a duplicate in whichever chunk it comes back. An
      // answer of one chunk needs no record of its keys; from the second chunk on, they are kept
      // in a temporary table that goes with the transaction, so that a pair's size does not
      // decide the memory its sync needs.
      const startKeyRecord = (keys: ReadonlyArray<string>) =>
        Effect.andThen(
          sql`CREATE TEMPORARY TABLE sync_document_keys (key text PRIMARY KEY) ON COMMIT DROP`,
          sql`INSERT INTO sync_document_keys SELECT DISTINCT unnest(${texts(keys)}::text[])`
        )
      // Records a chunk's keys; answers those an earlier chunk had.
      const recordKeys = (keys: ReadonlyArray<string>) =>
        sql<{ key: string }>`
          WITH chunk AS (SELECT DISTINCT unnest(${texts(keys)}::text[]) AS key),
          recorded AS (INSERT INTO sync_document_keys SELECT key FROM chunk ON CONFLICT DO NOTHING RETURNING key)
          SELECT key FROM chunk EXCEPT SELECT key FROM recorded`.pipe(
          Effect.map((rows) => new Set(rows.map((row) => row.key)))
        )

      const syncPair = <E>(integration: Integration, options: SyncPairOptions<E>) =>
        sql
          .withTransaction(
            Effect.gen(function* () {
              // The pair's lock: a concurrent sync of the same pair waits here, then plans on our result.
              // The commit does not wait for its WAL flush (`synchronous_commit` off for this
              // transaction only): a crash can lose the last fraction of a second of syncs, never
              // part of one, and a lost sync also loses its `next_sync_at`, so the pair is due
              // again and the portal, the source of truth, is read again. API key, audit and
              // operator writes keep durable commits.
              // The transaction's statements keep one plan each (`plan_cache_mode`): they read and
              // write by key whatever their parameters, and planning the last chunk's writes anew
              // for every pair cost a resync more PostgreSQL time than updating its rows.
              // A pair that has never run and has no receivables needs no lookup for its first
              // chunk. `last_run_at` is read from the row as locked, so a sync that committed while
              // we waited for the lock counts; the subquery sees receivables written by other means.
              const [lock] = yield* sql<{ empty: boolean }>`
              SELECT set_config('synchronous_commit', 'off', true),
                set_config('plan_cache_mode', 'force_generic_plan', true),
                i.last_run_at IS NULL AND NOT EXISTS (
                  SELECT 1 FROM receivables r WHERE r.org_id = i.org_id AND r.integration_id = i.id) AS empty
              FROM integrations i WHERE i.id = ${integration.id} FOR UPDATE`
              // One time for the whole sync: every row it changes shows the same updated_at.
              const at = DateTime.toDateUtc(yield* DateTime.now)
              // The portal's answer is read and planned a chunk at a time, with only that chunk's
              // receivables loaded, so a pair of any size syncs in bounded memory. A chunk's writes
              // wait for the next chunk (whose lookups must see them) or go with the run's end.
              const progress = yield* options.documents.pipe(
                Stream.rechunk(chunkSize),
                Stream.chunks,
                Stream.runFoldEffect(
                  (): Progress => ({ totals: emptyTotals, pending: undefined, chunks: 0, firstKeys: [] }),
                  (progress, chunk: ReadonlyArray<FetchedDocument>) =>
                    Effect.gen(function* () {
                      if (progress.pending !== undefined) yield* writePlan(integration, progress.pending, at)
                      const first = progress.chunks === 0
                      // A key that cannot be stored matches nothing stored and is quarantined.
                      const keys = chunk.map((document) => document.documentKey).filter(isStorableText)
                      const current = first && lock?.empty === true ? [] : yield* currentReceivables(integration, keys)
                      if (progress.chunks === 1) yield* startKeyRecord(progress.firstKeys)
                      const earlier = first ? new Set<string>() : yield* recordKeys(keys)
                      const plan = yield* options.plan(current, chunk, earlier)
                      return {
                        totals: addTotals(progress.totals, plan),
                        pending: plan,
                        chunks: progress.chunks + 1,
                        firstKeys: first ? keys : []
                      }
                    })
                )
              )
              const grown = yield* finishRun(integration, options, at, progress.totals, progress.pending)
              return { counts: progress.totals.counts, grown }
            })
          )
          .pipe(
            Effect.catchTag("SqlError", Effect.die),
            Effect.tap(({ grown }) => refreshStatistics(grown)),
            Effect.map(({ counts }) => counts),
            Effect.withSpan("PgPairStore.syncPair")
          )

      const recordFailure = Effect.fn("PgPairStore.recordFailure")(function* (
        integration: Integration,
        options: FailedRun
      ) {
        yield* sql
          .withTransaction(
            Effect.gen(function* () {
              yield* sql`
            UPDATE integrations SET next_sync_at = ${DateTime.toDateUtc(options.retryAt)}, last_run_at = now(),
              last_outcome = 'failed', last_error = ${options.error},
              consecutive_failures = consecutive_failures + 1, lease_owner = NULL, lease_expires_at = NULL
            WHERE id = ${integration.id}`
              yield* sql`
            INSERT INTO sync_runs (org_id, integration_id, worker, started_at, finished_at, outcome, error)
            VALUES (${integration.orgId}, ${integration.id}, ${options.worker}, ${DateTime.toDateUtc(options.startedAt)},
              now(), 'failed', ${options.error})`
            })
          )
          .pipe(Effect.orDie)
      })

      const releaseClaims = Effect.fn("PgPairStore.releaseClaims")(function* (
        worker: string,
        ids: ReadonlyArray<IntegrationId>
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

      return PairStore.of({ claimDue, get, syncPair, recordFailure, releaseClaims, countOverdue })
    })
  )

export const layer = layerWith(defaultChunkSize)
