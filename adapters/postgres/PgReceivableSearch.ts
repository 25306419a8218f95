/**
 * `ReceivableSearch` over PostgreSQL. A search by text is three index ranges, one per searched
 * column (`0020_dashboard_search.ts`), OR-ed as a bitmap; the page is chosen on the matches'
 * keys and only its rows are read, with the same columns as the API's list
 * (`PgReceivableStore.ts`). Every statement filters by organization; values are bound parameters.
 */
import { DateTime, Effect, Layer, Option } from "effect"
import { SqlClient } from "effect/sql"
import { type Status, statuses } from "../../core/receivables/domain/Status.ts"
import { ReceivableSearch, type SearchRequest, type SortKey } from "../../core/receivables/ports/ReceivableSearch.ts"
import type { ReceivableFilter } from "../../core/receivables/ports/ReceivableStore.ts"
import type { OrgId } from "../../core/shared/domain/Ids.ts"
import { makeStatements, type ReceivableRow, toReceivable } from "./PgReceivableStore.ts"

interface SearchRow extends ReceivableRow {
  readonly total_count: bigint
}

/** `LIKE` takes `%`, `_` and its escape character literally only when escaped. */
export const likePrefix = (text: string) => `${text.replace(/[\\%_]/g, (c) => `\\${c}`)}%`

const sortColumns: Record<SortKey, string> = {
  detected: "detected_at",
  updated: "updated_at",
  amount: "amount_cents",
  due: "due_date"
}

/**
 * The search's statement: the page's rows, each with the count of every match. Exported for the
 * tests that read its plan.
 */
export const searchStatement = (sql: SqlClient.SqlClient) => {
  const { receivableColumns } = makeStatements(sql)

  const conditions = (org: OrgId, filter: ReceivableFilter, text: string | undefined) => {
    const prefix = text === undefined ? undefined : likePrefix(text.toLowerCase())
    return sql.and([
      sql`r.org_id = ${org}`,
      ...(filter.vendorId === undefined ? [] : [sql`r.vendor_id = ${filter.vendorId}`]),
      ...(filter.debtorId === undefined ? [] : [sql`r.debtor_id = ${filter.debtorId}`]),
      ...(filter.status === undefined ? [] : [sql`r.status = ${filter.status}`]),
      ...(filter.updatedSince === undefined ? [] : [sql`r.updated_at >= ${DateTime.toDateUtc(filter.updatedSince)}`]),
      ...(prefix === undefined
        ? []
        : [
            sql`(lower(r.vendor_receivable_id) LIKE ${prefix} OR lower(r.po_number) LIKE ${prefix} OR r.id LIKE ${prefix})`
          ])
    ])
  }

  // The order of a page: the chosen column, then the newest detected. Only the due date may be
  // empty (last either way); the others are NOT NULL and are ordered without NULLS LAST, which
  // would keep the planner from reading the list index backwards for "newest first". Amounts
  // compare only within a currency: currency, amount and id all in the one direction, the order
  // of `receivables_amount_idx` (0033) read forwards or backwards.
  const orderBy = (alias: string, order: SearchRequest["order"]) => {
    const direction = order.descending ? "DESC" : "ASC"
    const column = `${alias}.${sortColumns[order.key]}`
    if (order.key === "detected") return sql.literal(`${column} ${direction}, ${alias}.id ${direction}`)
    if (order.key === "amount") {
      return sql.literal(`${alias}.currency ${direction}, ${column} ${direction}, ${alias}.id ${direction}`)
    }
    const nulls = order.key === "due" ? " NULLS LAST" : ""
    return sql.literal(`${column} ${direction}${nulls}, ${alias}.detected_at DESC, ${alias}.id DESC`)
  }

  return (org: OrgId, request: SearchRequest) => {
    const where = conditions(org, request.filter, request.text)
    // The page's keys and the count are two reads of the index, not one shared result: a shared
    // CTE would be materialized whole, every match read before the first 50 are chosen.
    return sql<SearchRow>`
      WITH page_keys AS (SELECT r.id FROM receivables r WHERE ${where} ORDER BY ${orderBy("r", request.order)}
        LIMIT ${request.window.limit} OFFSET ${request.window.offset}),
      total AS (SELECT count(*) AS total_count FROM receivables r WHERE ${where})
      SELECT total.total_count, ${receivableColumns(Option.none(), request.metadata === true)}
      FROM total
      LEFT JOIN (page_keys k JOIN receivables p ON p.org_id = ${org} AND p.id = k.id) ON true
      ORDER BY ${orderBy("p", request.order)}`
  }
}

export const layer = Layer.effect(
  ReceivableSearch,
  Effect.gen(function* () {
    const sql = yield* SqlClient.SqlClient
    const statement = searchStatement(sql)

    const search = Effect.fn("PgReceivableSearch.search")(function* (org: OrgId, request: SearchRequest) {
      const rows = yield* statement(org, request)
      return {
        totalCount: Number(rows[0]?.total_count ?? 0),
        items: rows.filter((row) => row.id !== null).map(toReceivable)
      }
    }, Effect.orDie)

    const totals = Effect.fn("PgReceivableSearch.totals")(function* (org: OrgId) {
      const rows = yield* sql<{ status: Status; currency: string; count: bigint; amount_cents: string }>`
        SELECT status, currency, count(*) AS count, sum(amount_cents)::text AS amount_cents
        FROM receivables WHERE org_id = ${org}
        GROUP BY status, currency`
      const rank = (status: Status) => statuses.indexOf(status)
      const ordered = rows.toSorted((a, b) => rank(a.status) - rank(b.status) || (a.currency < b.currency ? -1 : 1))
      return ordered.map((row) => ({
        status: row.status,
        currency: row.currency,
        count: Number(row.count),
        amountCents: Number(row.amount_cents)
      }))
    }, Effect.orDie)

    return ReceivableSearch.of({ search, totals })
  })
)
