/**
 * The read side of `ReceivableStore` over PostgreSQL. A list page, its total count and the page's
 * history (newest first, limited per receivable) come back in ONE statement; every statement
 * filters by organization, and only the filters a request uses reach the SQL, so each filter
 * combination is planned against its own index.
 */
import { DateTime, Effect, Layer, Option } from "effect"
import { SqlClient } from "effect/sql"
import type { DebtorId, OrgId, ReceivableId, VendorId } from "../../core/domain/Ids.ts"
import type { Debtor, HistoryEntry, Receivable, Vendor } from "../../core/domain/Resources.ts"
import {
  type ReceivableFilter,
  ReceivableStore,
  type ReceivablesPageRequest
} from "../../core/ports/ReceivableStore.ts"
import type { ReceivableFieldsRow } from "./Rows.ts"

interface ReceivableRow extends ReceivableFieldsRow {
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

interface PartyRow {
  readonly id: string
  readonly name: string
  readonly created_at: Date
  readonly next_sync_at: Date | null
}

const utc = (date: Date) => DateTime.fromDateUnsafe(date)

// Rows come from our own schema, whose constraints already hold the domain's rules (id form,
// currency, status, metadata object); a row that breaks them is a defect, not a user error.
const toReceivable = (row: ReceivableRow): Receivable => {
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

  // The columns of a receivable as the API shows it. The pair's next run time is stored once,
  // on its integration, so every receivable of a pair shows the same value. Names and the next
  // run time are read by primary key in subqueries rather than joins: the planner then has two
  // relations to order instead of five, which more than halves a page's planning time and makes
  // a default page about a tenth cheaper for PostgreSQL, with the same lookups. The receivable's
  // composite references tie its vendor and integration to its organization, which the
  // receivable itself is filtered on.
  const receivableColumns = (history: Option.Option<number>, metadata: boolean) => sql`
    p.id, p.vendor_receivable_id, p.vendor_id, (SELECT v.name FROM vendors v WHERE v.id = p.vendor_id) AS vendor_name,
    p.debtor_id, (SELECT d.name FROM debtors d WHERE d.id = p.debtor_id) AS debtor_name,
    p.amount_cents, p.currency, p.receivable_date, p.due_date, p.status, p.portal_status, p.po_number,
    p.detected_at, p.updated_at,
    (SELECT CASE WHEN i.paused_at IS NULL THEN i.next_sync_at END FROM integrations i WHERE i.id = p.integration_id)
      AS next_sync_at,
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

  /** A page, its total and (if wanted) its history, in one statement. */
  const listPage = (org: OrgId, request: ReceivablesPageRequest) => {
    const where = conditions(org, request.filter)
    // The page is chosen on index entries alone (every list index carries detected_at and id),
    // and only its rows are then read: skipped and unchosen rows cost no table access. The total
    // rides along; with a page past the end the outer join still yields one row, carrying the
    // total and no receivable.
    return sql<ReceivableRow & { readonly total_count: bigint }>`
      WITH page_keys AS (
        SELECT r.id FROM receivables r WHERE ${where}
        ORDER BY r.detected_at, r.id
        LIMIT ${request.window.limit} OFFSET ${request.window.offset}
      ),
      total AS (SELECT count(*) AS total_count FROM receivables r WHERE ${where})
      SELECT total.total_count, ${receivableColumns(request.history, request.metadata)}
      FROM total
      LEFT JOIN (
        page_keys k
        JOIN receivables p ON p.org_id = ${org} AND p.id = k.id
        ${historyJoin(request.history)}
      ) ON true
      ORDER BY p.detected_at, p.id`
  }

  return { listPage, receivableColumns, historyJoin }
}

export const layer = Layer.effect(
  ReceivableStore,
  Effect.gen(function* () {
    const sql = yield* SqlClient.SqlClient
    const { listPage, receivableColumns, historyJoin } = makeStatements(sql)

    const listReceivables = Effect.fn("PgReceivableStore.listReceivables")(function* (
      org: OrgId,
      request: ReceivablesPageRequest
    ) {
      const rows = yield* listPage(org, request)
      return {
        totalCount: Number(rows[0]?.total_count ?? 0),
        items: rows.filter((row) => row.id !== null).map(toReceivable)
      }
    }, Effect.orDie)

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

    return ReceivableStore.of({ listReceivables, getReceivable, listVendors, listDebtors })
  })
)
