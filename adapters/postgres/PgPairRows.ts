/**
 * The rows of a pair's sync as PostgreSQL reads and writes them: integration and receivable rows
 * mapped to the domain, and a chunk's writes as the common table expressions of one statement.
 * Shared by the pair store and its sessions; no decisions about what to write are made here.
 */
import { PgTypes } from "@effect/sql-pg"
import { DateTime, Duration, Result } from "effect"
import type { SqlClient, Statement } from "effect/sql"
import type { PairReceivable } from "../../core/receivables/domain/PairSync.ts"
import type { ReceivableState } from "../../core/receivables/domain/Resources.ts"
import type { Pair, PairWrites } from "../../core/receivables/ports/PairStore.ts"
import type { DebtorId, OrgId, PairId, ReceivableId, VendorId } from "../../core/shared/domain/Ids.ts"
import type { PairRow, ReceivableFieldsRow } from "./Rows.ts"

export interface IntegrationRow extends PairRow {
  readonly config: unknown
}

export interface ReceivableRow extends ReceivableFieldsRow {
  readonly id: string
  readonly document_key: string
  readonly metadata: Record<string, string>
  readonly detected_at: Date
}

export const toIntegration = (row: IntegrationRow): Pair => ({
  id: row.id as PairId,
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

export const toPairReceivable = (row: ReceivableRow): PairReceivable => ({
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
  },
  detectedAt: DateTime.fromDateUnsafe(row.detected_at)
})

// Rows travel as one binary array per column, unnested side by side: PostgreSQL copies each value
// in place instead of parsing a JSON document per row (a sixth of its time in a first sync went
// there); only the values that are JSON themselves are read as such: metadata and event payloads
// (`json`) are checked, history's changes (`jsonb`) are parsed.
const column = (values: ReadonlyArray<unknown>, element: number) => Result.getOrThrow(PgTypes.array(values, element))
export const texts = (values: ReadonlyArray<string | null>) => column(values, PgTypes.OID.text)
const bigints = (values: ReadonlyArray<number>) => column(values.map(BigInt), PgTypes.OID.int8)
const dates = (values: ReadonlyArray<string | null>) => column(values, PgTypes.OID.date)
const timestamps = (values: ReadonlyArray<Date>) => column(values, PgTypes.OID.timestamptz)
const jsons = (values: ReadonlyArray<unknown>) => column(values, PgTypes.OID.json)
const jsonbs = (values: ReadonlyArray<unknown>) => column(values, PgTypes.OID.jsonb)

/** Where a chunk's events go: the session's batch, numbered on from `firstOrdinal`. */
export interface EventPlace {
  readonly batch: bigint
  readonly firstOrdinal: number
}

/** A chunk's writes as named statements to join with `WITH`; only the parts it has. */
export type PairWritesSql = (
  integration: Pair,
  writes: PairWrites,
  at: Date,
  events: EventPlace
) => ReadonlyArray<Statement.Fragment>

// A chunk's whole plan as the common table expressions of one statement (one round trip): new
// receivables, changed ones, their history and the events. History's reference to its receivable
// is checked at the statement's end.
export const pairWritesSql =
  (sql: SqlClient.SqlClient): PairWritesSql =>
  (integration, plan, at, place) => {
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
        INSERT INTO events (batch, ordinal, org_id, type, receivable_id, created_at, data)
        SELECT ${place.batch.toString()}::bigint, ${place.firstOrdinal - 1} + e.ordinal, ${org}, e.type, e.receivable_id, e.created_at,
          e.data
        FROM unnest(
          ${texts(plan.events.map((e) => e.type))}::text[], ${texts(plan.events.map((e) => e.receivableId))}::text[],
          ${timestamps(plan.events.map((e) => DateTime.toDateUtc(e.createdAt)))}::timestamptz[],
          ${jsons(plan.events.map((e) => e.data))}::json[]
        ) WITH ORDINALITY AS e(type, receivable_id, created_at, data, ordinal))`)
    }
    return writes
  }
