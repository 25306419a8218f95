/**
 * The read side of `ReceivableStore` over PostgreSQL. A list page, its counts, its watermark and
 * the page's history (newest first, limited per receivable) come back in ONE statement, so in one
 * snapshot; every statement filters by organization, and only the filters a request uses reach
 * the SQL, so each filter combination is planned against its own index.
 */
import { DateTime, Duration, Effect, Layer, Option } from "effect"
import { SqlClient, type Statement } from "effect/sql"
import type { Debtor, HistoryEntry, Integration, Receivable, Vendor } from "../../core/receivables/domain/Resources.ts"
import * as RunError from "../../core/receivables/domain/RunError.ts"
import {
  type IntegrationFilter,
  type ReceivableFilter,
  ReceivableStore,
  type ReceivablesPageRequest,
  StartingAfterNotFound
} from "../../core/receivables/ports/ReceivableStore.ts"
import type { DebtorId, OrgId, PairId, ReceivableId, VendorId } from "../../core/shared/domain/Ids.ts"
import { syncMarkStaleAfter } from "../../core/shared/domain/ListQuery.ts"
import type { ReceivableFieldsRow } from "./Rows.ts"

export interface ReceivableRow extends ReceivableFieldsRow {
  readonly id: string
  readonly vendor_id: string
  readonly vendor_name: string
  readonly debtor_id: string
  readonly debtor_name: string
  readonly detected_at: Date
  readonly updated_at: Date
  readonly next_sync_at: Date | null
  readonly metadata: Record<string, string> | null
  readonly history: ReadonlyArray<{ readonly changed_at: string; readonly changes: HistoryEntry["changes"] }> | null
}

interface ChunkRow extends ReceivableRow {
  readonly following_count: bigint
  readonly cursor_found: boolean
}

interface PageRow extends ChunkRow {
  readonly total_count: bigint
  readonly next_verified_since: Date
}

interface IntegrationRow {
  readonly id: string
  readonly vendor_id: string
  readonly vendor_name: string
  readonly debtor_id: string
  readonly debtor_name: string
  readonly connector: string
  readonly paused: boolean
  readonly last_outcome: string | null
  readonly next_sync_at: Date | null
  // The newest finished run's columns: all null when the pair has none, else all set (NOT NULL
  // in the table but for finished_at and outcome, which the query requires).
  readonly started_at: Date | null
  readonly finished_at: Date
  readonly outcome: "succeeded" | "failed"
  readonly created: number
  readonly updated: number
  readonly unchanged: number
  readonly quarantined: number
  readonly error: string | null
}

interface PartyRow {
  readonly id: string
  readonly name: string
  readonly created_at: Date
  readonly next_sync_at: Date | null
}

const utc = (date: Date) => DateTime.fromDateUnsafe(date)

// Rows come from our own schema, whose constraints already hold the domain's rules (id form,
// currency, status, metadata object); a row that breaks them is a defect, not a user error.
export const toReceivable = (row: ReceivableRow): Receivable => {
  const amountCents = Number(row.amount_cents)
  if (!Number.isSafeInteger(amountCents)) throw new Error(`receivable ${row.id}: amount beyond a safe integer`)
  return {
    id: row.id as Receivable["id"],
    object: "receivable",
    vendorReceivableId: row.vendor_receivable_id,
    vendor: { id: row.vendor_id as VendorId, name: row.vendor_name },
    debtor: { id: row.debtor_id as DebtorId, name: row.debtor_name },
    amountCents,
    currency: row.currency as Receivable["currency"],
    receivableDate: row.receivable_date as Receivable["receivableDate"],
    dueDate: row.due_date as Receivable["dueDate"],
    status: row.status as Receivable["status"],
    portalStatus: row.portal_status,
    poNumber: row.po_number,
    detectedAt: utc(row.detected_at),
    updatedAt: utc(row.updated_at),
    estimatedNextUpdateAt: row.next_sync_at === null ? null : utc(row.next_sync_at),
    ...(row.history === null
      ? {}
      : {
          history: row.history.map((entry) => ({
            changedAt: DateTime.makeUnsafe(entry.changed_at),
            changes: entry.changes
          }))
        }),
    ...(row.metadata === null ? {} : { metadata: row.metadata })
  }
}

const toIntegration = (row: IntegrationRow): Integration => ({
  id: row.id as PairId,
  object: "integration",
  vendor: { id: row.vendor_id as VendorId, name: row.vendor_name },
  debtor: { id: row.debtor_id as DebtorId, name: row.debtor_name },
  connector: row.connector,
  state: row.paused ? "paused" : row.last_outcome === "failed" ? "failing" : "active",
  lastSync:
    row.started_at === null
      ? null
      : {
          startedAt: utc(row.started_at),
          finishedAt: utc(row.finished_at),
          outcome: row.outcome,
          created: row.created,
          updated: row.updated,
          unchanged: row.unchanged,
          quarantined: row.quarantined,
          // Consumers get the failure's class and its sentence; the recorded detail is the operators'.
          ...RunError.forConsumers(row.error)
        },
  estimatedNextUpdateAt: row.next_sync_at === null ? null : utc(row.next_sync_at)
})

const toParty = (row: PartyRow) => ({
  id: row.id,
  name: row.name,
  createdAt: utc(row.created_at),
  estimatedNextUpdateAt: row.next_sync_at === null ? null : utc(row.next_sync_at)
})

/**
 * The statements of the read path, built from what a request uses. Exported so that their plans
 * can be checked with EXPLAIN against the indexes.
 */
export const makeStatements = (sql: SqlClient.SqlClient) => {
  const conditions = (org: OrgId, filter: ReceivableFilter) =>
    sql.and([
      sql`r.org_id = ${org}`,
      ...(filter.vendorId === undefined ? [] : [sql`r.vendor_id = ${filter.vendorId}`]),
      ...(filter.debtorId === undefined ? [] : [sql`r.debtor_id = ${filter.debtorId}`]),
      ...(filter.status === undefined ? [] : [sql`r.status = ${filter.status}`]),
      ...(filter.updatedSince === undefined ? [] : [sql`r.updated_at >= ${DateTime.toDateUtc(filter.updatedSince)}`])
    ])

  // A receivable's own columns as the API shows them, read from `p`.
  const ownColumns = sql`p.id, p.vendor_receivable_id, p.vendor_id, p.debtor_id, p.amount_cents, p.currency,
    p.receivable_date, p.due_date, p.status, p.portal_status, p.po_number, p.detected_at, p.updated_at`

  // Its pair's names and next run time (stored once, on the integration, so every receivable of a
  // pair shows the same value), read by primary key in subqueries rather than joins: the planner
  // then has two relations to order instead of five, which more than halves a statement's
  // planning time. The receivable's composite references tie its vendor and integration to its
  // organization, which the receivable itself is filtered on.
  const names = (vendorId: Statement.Fragment, debtorId: Statement.Fragment) =>
    sql`(SELECT v.name FROM vendors v WHERE v.id = ${vendorId}) AS vendor_name,
      (SELECT d.name FROM debtors d WHERE d.id = ${debtorId}) AS debtor_name`
  const pairByKey = sql`${names(sql`p.vendor_id`, sql`p.debtor_id`)},
    (SELECT CASE WHEN i.paused_at IS NULL THEN i.next_sync_at END FROM integrations i WHERE i.id = p.integration_id)
      AS next_sync_at`

  /** The columns of a receivable as the API shows it; `pair` gives its pair's names and next run time. */
  const receivableColumns = (history: Option.Option<number>, metadata: boolean, pair = pairByKey) => sql`
    ${ownColumns}, ${pair},
    ${metadata ? sql`p.metadata` : sql`NULL::json`} AS metadata,
    ${Option.isSome(history) ? sql`h.history` : sql`NULL::json`} AS history`

  // A page's history, newest first and limited per receivable, joined to each of its rows.
  const historyJoin = (history: Option.Option<number>) =>
    Option.isSome(history)
      ? sql`LEFT JOIN LATERAL (
          SELECT coalesce(json_agg(json_build_object('changed_at', e.changed_at, 'changes', e.changes)
            ORDER BY e.changed_at DESC, e.id DESC), '[]') AS history
          FROM (
            SELECT changed_at, changes, id FROM receivable_history
            WHERE org_id = p.org_id AND receivable_id = p.id
            ORDER BY changed_at DESC, id DESC
            LIMIT ${history.value}
          ) e
        ) h ON true`
      : sql``

  // Keyset paging: the cursor's place is read from its own row, by key, whatever the filter says
  // of it now; another organization's id finds nothing. Its two values are scalar subqueries, so
  // PostgreSQL computes them once before the scan and the row comparison becomes the start of an
  // index range: every list index ends with (detected_at, id), so a page deep in the list costs
  // what the first does, where OFFSET reads and skips every entry before it.
  const keyset = (org: OrgId, after: ReceivableId | undefined) =>
    after === undefined
      ? { cursor: sql``, following: sql`true`, found: sql`true` }
      : {
          cursor: sql`cursor AS (SELECT detected_at, id FROM receivables WHERE org_id = ${org} AND id = ${after}),`,
          following: sql`(r.detected_at, r.id) > ((SELECT detected_at FROM cursor), (SELECT id FROM cursor))`,
          found: sql`EXISTS (SELECT 1 FROM cursor)`
        }

  // The safe watermark (`nextVerifiedSince` in core/shared/domain/ListQuery.ts) on the database's clock,
  // the one that writes `updated_at` and the pairs' in-flight marks: the earliest of this
  // statement's start and the fresh marks of the organization's pairs (`least` skips the NULL of
  // none). Why no change committed after this read can carry an `updated_at` before it: a sync
  // marks its pair (clock_timestamp(), committed on its own) before its transaction begins, and
  // writes every row with one clock_timestamp() taken inside that transaction, so at or after its
  // mark. A sync whose mark our snapshot sees writes at or after it, so at or after the minimum.
  // A sync whose mark our snapshot does not see committed that mark after our snapshot was taken,
  // which is after transaction_timestamp(); its transaction, and the time it writes, come later
  // still. A sync whose mark was cleared before our snapshot has committed or rolled back, and
  // its rows are in the snapshot or nowhere. Marks older than `syncMarkStaleAfter` are crashed
  // workers' (no sync outlives its 9-minute deadline). Cut to milliseconds (the API's precision),
  // downwards, so the value a client passes back is never after the instant it stands for.
  const watermark = (org: OrgId) => sql`date_trunc('milliseconds', least(transaction_timestamp(), (
    SELECT min(i.sync_started_at) FROM integrations i
    WHERE i.org_id = ${org}
      AND i.sync_started_at >= transaction_timestamp() - ${Duration.toMillis(syncMarkStaleAfter)} * interval '1 millisecond'
  )))`

  /**
   * A page's statement around `total`, its one row of counts: built from the page's conditions,
   * the cursor's following condition and whether the cursor was found.
   */
  const pageStatement = <Row extends ChunkRow>(
    org: OrgId,
    request: ReceivablesPageRequest,
    total: (where: Statement.Fragment, following: Statement.Fragment, found: Statement.Fragment) => Statement.Fragment
  ) => {
    const where = conditions(org, request.filter)
    const { cursor, following, found } = keyset(org, request.startingAfter)
    // The page is chosen on index entries alone (every list index carries detected_at and id),
    // and only its rows are then read: skipped and unchosen rows cost no table access. With a
    // page past the end (or an unknown cursor) the outer join still yields one row, carrying the
    // counts and no receivable.
    const head = sql`
      WITH ${cursor} page_keys AS (
        SELECT r.id FROM receivables r WHERE ${where} AND ${following}
        ORDER BY r.detected_at, r.id
        LIMIT ${request.window.limit} OFFSET ${request.window.offset}
      ),
      total AS (${total(where, following, found)})`
    const fewPairs = request.filter.vendorId !== undefined || request.filter.debtorId !== undefined
    if (!fewPairs) {
      // Rows of many pairs (bench/api's pages hold about one a pair): the pair is read by key
      // for each row, which plans faster than reading each pair once.
      return sql<Row>`${head}
        SELECT total.*, ${receivableColumns(request.history, request.metadata)}
        FROM total
        LEFT JOIN (
          page_keys k
          JOIN receivables p ON p.org_id = ${org} AND p.id = k.id
          ${historyJoin(request.history)}
        ) ON true
        ORDER BY p.detected_at, p.id`
    }
    // A vendor's or a debtor's receivables come from its few pairs: each pair's names and next
    // run time are read once (materialized, or the planner folds the lookups back into one a
    // row; names by subquery, as above, for the planning time). The composite reference makes
    // the pair's vendor and debtor the receivable's own.
    return sql<Row>`${head},
      page AS (
        SELECT p.org_id, p.integration_id, ${ownColumns}${request.metadata ? sql`, p.metadata` : sql``}
        FROM page_keys k JOIN receivables p ON p.org_id = ${org} AND p.id = k.id
      ),
      pairs AS MATERIALIZED (
        SELECT i.id, ${names(sql`i.vendor_id`, sql`i.debtor_id`)},
          CASE WHEN i.paused_at IS NULL THEN i.next_sync_at END AS next_sync_at
        FROM integrations i
        WHERE i.org_id = ${org} AND i.id IN (SELECT integration_id FROM page)
      )
      SELECT total.*,
        ${receivableColumns(request.history, request.metadata, sql`s.vendor_name, s.debtor_name, s.next_sync_at`)}
      FROM total
      LEFT JOIN (
        page p
        JOIN pairs s ON s.id = p.integration_id
        ${historyJoin(request.history)}
      ) ON true
      ORDER BY p.detected_at, p.id`
  }

  /** A page, its counts, its watermark and (if wanted) its history, in one statement. */
  const listPage = (org: OrgId, request: ReceivablesPageRequest) =>
    // Both counts from one pass over the matches.
    pageStatement<PageRow>(
      org,
      request,
      (where, following, found) => sql`
        SELECT count(*) AS total_count, count(*) FILTER (WHERE ${following}) AS following_count,
          ${found} AS cursor_found, ${watermark(org)} AS next_verified_since
        FROM receivables r WHERE ${where}`
    )

  /**
   * A later chunk of a page (`continuePage`): the matches after the cursor counted no further
   * than tells whether more follow, which reads the index entries the page reads and one more,
   * where counting every match reads them all.
   */
  const continuedPage = (org: OrgId, request: ReceivablesPageRequest) =>
    pageStatement<ChunkRow>(
      org,
      request,
      (where, following, found) => sql`
        SELECT (SELECT count(*) FROM (
          SELECT FROM receivables r WHERE ${where} AND ${following}
          LIMIT ${request.window.offset + request.window.limit + 1}
        ) m) AS following_count, ${found} AS cursor_found`
    )

  return { listPage, continuedPage, receivableColumns, historyJoin }
}

export const layer = Layer.effect(
  ReceivableStore,
  Effect.gen(function* () {
    const sql = yield* SqlClient.SqlClient
    const { listPage, continuedPage, receivableColumns, historyJoin } = makeStatements(sql)

    const listReceivables = Effect.fn("PgReceivableStore.listReceivables")(function* (
      org: OrgId,
      request: ReceivablesPageRequest
    ) {
      const rows = yield* Effect.orDie(listPage(org, request))
      // `total` has one row, so the statement always answers at least one.
      const first = rows[0]!
      if (!first.cursor_found) return yield* new StartingAfterNotFound({ id: request.startingAfter ?? "" })
      return {
        totalCount: Number(first.total_count),
        followingCount: Number(first.following_count),
        items: rows.filter((row) => row.id !== null).map(toReceivable),
        nextVerifiedSince: utc(first.next_verified_since)
      }
    })

    const continuePage = Effect.fn("PgReceivableStore.continuePage")(function* (
      org: OrgId,
      request: ReceivablesPageRequest & { readonly startingAfter: ReceivableId }
    ) {
      const rows = yield* Effect.orDie(continuedPage(org, request))
      if (!rows[0]!.cursor_found) return yield* new StartingAfterNotFound({ id: request.startingAfter })
      return {
        followingCount: Number(rows[0]!.following_count),
        items: rows.filter((row) => row.id !== null).map(toReceivable)
      }
    })

    const getReceivable = Effect.fn("PgReceivableStore.getReceivable")(function* (
      org: OrgId,
      id: ReceivableId,
      historyLimit: number
    ) {
      const history = Option.some(historyLimit)
      const rows = yield* sql<ReceivableRow>`
        SELECT ${receivableColumns(history, true)}
        FROM receivables p ${historyJoin(history)}
        WHERE p.org_id = ${org} AND p.id = ${id}`
      return Option.map(Option.fromNullishOr(rows[0]), toReceivable)
    }, Effect.orDie)

    const listVendors = Effect.fn("PgReceivableStore.listVendors")(function* (
      org: OrgId,
      filter: { readonly debtorId?: DebtorId | undefined }
    ) {
      const rows: ReadonlyArray<PartyRow> = yield* sql<PartyRow>`
        SELECT v.id, v.name, v.created_at,
          (SELECT min(i.next_sync_at) FROM integrations i
           WHERE i.org_id = v.org_id AND i.vendor_id = v.id AND i.paused_at IS NULL) AS next_sync_at
        FROM vendors v
        WHERE v.org_id = ${org}
        ${
          filter.debtorId === undefined
            ? sql``
            : sql`AND EXISTS (SELECT 1 FROM receivables r
                WHERE r.org_id = v.org_id AND r.vendor_id = v.id AND r.debtor_id = ${filter.debtorId})`
        }
        ORDER BY v.name, v.id`
      return rows.map((row): Vendor => ({ ...toParty(row), id: row.id as VendorId, object: "vendor" }))
    }, Effect.orDie)

    const listDebtors = Effect.fn("PgReceivableStore.listDebtors")(function* (
      org: OrgId,
      filter: { readonly vendorId?: VendorId | undefined }
    ) {
      // A debtor is listed, and scheduled, only through this organization's own pairs.
      const rows: ReadonlyArray<PartyRow> = yield* sql<PartyRow>`
        SELECT d.id, d.name, d.created_at,
          (SELECT min(i.next_sync_at) FROM integrations i
           WHERE i.org_id = ${org} AND i.debtor_id = d.id AND i.paused_at IS NULL) AS next_sync_at
        FROM debtors d
        WHERE EXISTS (
          SELECT 1 FROM receivables r
          WHERE r.org_id = ${org} AND r.debtor_id = d.id
          ${filter.vendorId === undefined ? sql`` : sql`AND r.vendor_id = ${filter.vendorId}`}
        )
        ORDER BY d.name, d.id`
      return rows.map((row): Debtor => ({ ...toParty(row), id: row.id as DebtorId, object: "debtor" }))
    }, Effect.orDie)

    const listIntegrations = Effect.fn("PgReceivableStore.listIntegrations")(function* (
      org: OrgId,
      filter: IntegrationFilter
    ) {
      // The newest finished run by the run table's own index (newest start, then the later
      // recorded), like `integration show`. The configuration is never read: it may name where a
      // secret lives, and the API shows only the connector's kind. A paused pair has no next
      // update, as its receivables show.
      const rows: ReadonlyArray<IntegrationRow> = yield* sql<IntegrationRow>`
        SELECT i.id, i.vendor_id, v.name AS vendor_name, i.debtor_id, d.name AS debtor_name, i.connector,
          i.paused_at IS NOT NULL AS paused, i.last_outcome,
          CASE WHEN i.paused_at IS NULL THEN i.next_sync_at END AS next_sync_at,
          s.started_at, s.finished_at, s.outcome, s.created, s.updated, s.unchanged, s.quarantined, s.error
        FROM integrations i
        JOIN vendors v ON v.org_id = i.org_id AND v.id = i.vendor_id
        JOIN debtors d ON d.id = i.debtor_id
        LEFT JOIN LATERAL (
          SELECT started_at, finished_at, outcome, created, updated, unchanged, quarantined, error
          FROM sync_runs
          WHERE org_id = i.org_id AND integration_id = i.id AND outcome IS NOT NULL AND finished_at IS NOT NULL
          ORDER BY started_at DESC, id DESC
          LIMIT 1
        ) s ON true
        WHERE ${sql.and([
          sql`i.org_id = ${org}`,
          ...(filter.vendorId === undefined ? [] : [sql`i.vendor_id = ${filter.vendorId}`]),
          ...(filter.debtorId === undefined ? [] : [sql`i.debtor_id = ${filter.debtorId}`])
        ])}
        ORDER BY v.name, d.name, i.id`
      return rows.map(toIntegration)
    }, Effect.orDie)

    return ReceivableStore.of({
      listReceivables,
      continuePage,
      getReceivable,
      listVendors,
      listDebtors,
      listIntegrations
    })
  })
)
