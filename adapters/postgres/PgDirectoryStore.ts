/**
 * `DirectoryStore` over PostgreSQL: vendors, debtors, integrations and their sync runs as rows.
 * Ids arrive checked and branded (the directory service refuses malformed ones), so every lookup
 * is a plain bound parameter. The pair's uniqueness is the table's `(org_id, vendor_id, debtor_id)`
 * key; the rules of what may be stored live in the core service, not here.
 */
import { DateTime, Duration, Effect, Layer, Option, Schema } from "effect"
import { SqlClient } from "effect/sql"
import {
  type DebtorRecord,
  DirectoryStore,
  type IntegrationRecord,
  type IntegrationRow,
  quarantineShown,
  type SyncRunRecord,
  type VendorRecord
} from "../../core/receivables/ports/DirectoryStore.ts"
import type { DebtorId, OrgId, PairId, VendorId } from "../../core/shared/domain/Ids.ts"
import type { PairRow } from "./Rows.ts"

const utc = (date: Date) => DateTime.fromDateUnsafe(date)
const millis = (duration: Duration.Duration) => Duration.toMillis(duration)

interface IntegrationDbRow extends PairRow {
  readonly paused_at: Date | null
  readonly next_sync_at: Date | null
  readonly last_outcome: string | null
  readonly last_error: string | null
}

interface VendorRow {
  readonly id: string
  readonly org_id: string
  readonly name: string
  readonly created_at: Date
}

interface DebtorRow {
  readonly id: string
  readonly name: string
  readonly created_at: Date
}

interface RunRow {
  readonly started_at: Date
  readonly finished_at: Date | null
  readonly outcome: string | null
  readonly fetched: number
  readonly created: number
  readonly updated: number
  readonly unchanged: number
  readonly quarantined: number
  /** The first `quarantineShown` of the run's `quarantine` (jsonb), as the driver parses it. */
  readonly quarantine: unknown
  readonly error: string | null
  readonly portal_retry_at: Date | null
}

const toVendor = (row: VendorRow): VendorRecord => ({
  id: row.id as VendorId,
  orgId: row.org_id as OrgId,
  name: row.name,
  createdAt: utc(row.created_at)
})

const toDebtor = (row: DebtorRow): DebtorRecord => ({
  id: row.id as DebtorId,
  name: row.name,
  createdAt: utc(row.created_at)
})

const toIntegration = (row: IntegrationDbRow): IntegrationRecord => ({
  id: row.id as PairId,
  orgId: row.org_id as OrgId,
  vendor: { id: row.vendor_id as VendorId, name: row.vendor_name },
  debtor: { id: row.debtor_id as DebtorId, name: row.debtor_name },
  connector: row.connector,
  interval: Duration.millis(Number(row.interval_ms)),
  deadline: row.deadline_ms === null ? null : Duration.millis(Number(row.deadline_ms)),
  paused: row.paused_at !== null,
  nextSyncAt: row.next_sync_at === null ? null : utc(row.next_sync_at),
  lastOutcome: row.last_outcome,
  lastError: row.last_error,
  consecutiveFailures: row.consecutive_failures
})

// Written by the sync (`PgPairSession`) from the core's `Quarantined`: anything else is a fault.
const decodeQuarantine = Schema.decodeUnknownSync(
  Schema.Array(Schema.Struct({ documentKey: Schema.String, reasons: Schema.Array(Schema.String) }))
)

const toRun = (run: RunRow): SyncRunRecord => ({
  startedAt: utc(run.started_at),
  finishedAt: run.finished_at === null ? null : utc(run.finished_at),
  outcome: run.outcome,
  fetched: run.fetched,
  created: run.created,
  updated: run.updated,
  unchanged: run.unchanged,
  quarantined: run.quarantined,
  quarantine: decodeQuarantine(run.quarantine),
  error: run.error,
  ...(run.portal_retry_at === null ? {} : { portalRetryAt: utc(run.portal_retry_at) })
})

export const layer = Layer.effect(
  DirectoryStore,
  Effect.gen(function* () {
    const sql = yield* SqlClient.SqlClient

    const selectIntegrations = sql`
      SELECT i.id, i.org_id, i.vendor_id, v.name AS vendor_name, i.debtor_id, d.name AS debtor_name, i.connector,
        extract(epoch FROM i.sync_interval) * 1000 AS interval_ms,
        extract(epoch FROM i.sync_deadline) * 1000 AS deadline_ms, i.paused_at,
        CASE WHEN i.paused_at IS NULL THEN i.next_sync_at END AS next_sync_at, i.last_outcome,
        i.last_error, i.consecutive_failures
      FROM integrations i JOIN vendors v ON v.id = i.vendor_id JOIN debtors d ON d.id = i.debtor_id`

    const insertVendor = Effect.fn("PgDirectoryStore.insertVendor")(function* (org: OrgId, name: string) {
      const [row] = yield* sql<VendorRow>`INSERT INTO vendors (org_id, name) VALUES (${org}, ${name}) RETURNING *`
      return toVendor(row!)
    }, Effect.orDie)

    const findVendor = Effect.fn("PgDirectoryStore.findVendor")(function* (org: OrgId, id: VendorId) {
      const rows = yield* sql<VendorRow>`SELECT * FROM vendors WHERE id = ${id} AND org_id = ${org}`
      return Option.map(Option.fromNullishOr(rows[0]), toVendor)
    }, Effect.orDie)

    const listVendors = Effect.fn("PgDirectoryStore.listVendors")(function* (org: OrgId) {
      const rows = yield* sql<VendorRow>`SELECT * FROM vendors WHERE org_id = ${org} ORDER BY name, id`
      return rows.map(toVendor)
    }, Effect.orDie)

    const insertDebtor = Effect.fn("PgDirectoryStore.insertDebtor")(function* (name: string) {
      const [row] = yield* sql<DebtorRow>`INSERT INTO debtors (name) VALUES (${name}) RETURNING *`
      return toDebtor(row!)
    }, Effect.orDie)

    const findDebtor = Effect.fn("PgDirectoryStore.findDebtor")(function* (id: DebtorId) {
      const rows = yield* sql<DebtorRow>`SELECT * FROM debtors WHERE id = ${id}`
      return Option.map(Option.fromNullishOr(rows[0]), toDebtor)
    }, Effect.orDie)

    const listDebtors = sql<DebtorRow>`SELECT * FROM debtors ORDER BY name, id`.pipe(
      Effect.orDie,
      Effect.map((rows) => rows.map(toDebtor)),
      Effect.withSpan("PgDirectoryStore.listDebtors")
    )

    const findIntegration = Effect.fn("PgDirectoryStore.findIntegration")(function* (id: PairId) {
      const rows = yield* sql<IntegrationDbRow>`${selectIntegrations} WHERE i.id = ${id}`
      return Option.map(Option.fromNullishOr(rows[0]), toIntegration)
    }, Effect.orDie)

    const insertIntegration = Effect.fn("PgDirectoryStore.insertIntegration")(function* (row: IntegrationRow) {
      const rows = yield* sql<{ id: PairId }>`
        INSERT INTO integrations (org_id, vendor_id, debtor_id, connector, config, sync_interval, sync_deadline,
          next_sync_at)
        VALUES (${row.org}, ${row.vendor}, ${row.debtor}, ${row.connector}, ${JSON.stringify(row.config)}::jsonb,
          ${millis(row.interval)} * interval '1 millisecond',
          ${row.deadline === null ? null : millis(row.deadline)} * interval '1 millisecond',
          ${DateTime.toDateUtc(row.nextSyncAt)})
        ON CONFLICT (org_id, vendor_id, debtor_id) DO NOTHING
        RETURNING id`.pipe(Effect.orDie)
      return rows[0] === undefined ? Option.none() : yield* findIntegration(rows[0].id)
    })

    const listIntegrations = Effect.fn("PgDirectoryStore.listIntegrations")(function* (org: OrgId) {
      const rows = yield* sql<IntegrationDbRow>`
        ${selectIntegrations} WHERE i.org_id = ${org} ORDER BY v.name, d.name, i.id`
      return rows.map(toIntegration)
    }, Effect.orDie)

    const recentRuns = Effect.fn("PgDirectoryStore.recentRuns")(function* (org: OrgId, id: PairId, limit: number) {
      const rows = yield* sql<RunRow>`
        SELECT started_at, finished_at, outcome, fetched, created, updated, unchanged, quarantined, error,
          portal_retry_at,
          jsonb_path_query_array(quarantine, 'lax $[0 to $last]', jsonb_build_object('last', ${quarantineShown - 1}::int))
            AS quarantine
        FROM sync_runs WHERE org_id = ${org} AND integration_id = ${id}
        ORDER BY started_at DESC, id DESC LIMIT ${limit}`
      return rows.map(toRun)
    }, Effect.orDie)

    const setPaused = Effect.fn("PgDirectoryStore.setPaused")(function* (
      id: PairId,
      paused: boolean,
      at: DateTime.Utc
    ) {
      const when = DateTime.toDateUtc(at)
      // A paused pair is neither claimed nor shown with a next sync, but keeps the one its schedule
      // planned, so resuming brings nothing forward. Pairs paused before migration 0013 had theirs
      // cleared; that migration planned them again.
      yield* sql`
        UPDATE integrations SET paused_at = ${paused ? sql`coalesce(paused_at, ${when})` : sql`NULL`},
          next_sync_at = coalesce(next_sync_at, ${when})
        WHERE id = ${id}`.pipe(Effect.orDie)
      return yield* findIntegration(id)
    })

    // One conditional update: a concurrent mark waits for this row, then sees the new time and fails.
    const markManualSync = Effect.fn("PgDirectoryStore.markManualSync")(function* (
      id: PairId,
      at: DateTime.Utc,
      since: DateTime.Utc
    ) {
      const rows = yield* sql`
        UPDATE integrations SET manual_sync_at = ${DateTime.toDateUtc(at)}
        WHERE id = ${id} AND (manual_sync_at IS NULL OR manual_sync_at <= ${DateTime.toDateUtc(since)})
        RETURNING id`.pipe(Effect.orDie)
      return rows.length > 0
    })

    return DirectoryStore.of({
      insertVendor,
      findVendor,
      listVendors,
      insertDebtor,
      findDebtor,
      listDebtors,
      insertIntegration,
      findIntegration,
      listIntegrations,
      recentRuns,
      setPaused,
      markManualSync
    })
  })
)
