/**
 * The rows of a pair's sync as PostgreSQL reads and writes them: integration and receivable rows
 * mapped to the domain, and a chunk's writes as the common table expressions of one statement.
 * Shared by the pair store and its sessions; no decisions about what to write are made here.
 */
import { PgTypes } from "@effect/sql-pg"
import { DateTime, Duration, Result } from "effect"
import type { SqlClient, Statement } from "effect/sql"
import type { DebtorId, OrgId, PairId, ReceivableId, VendorId } from "../../core/domain/Ids.ts"
import { isoInstant } from "../../core/domain/IsoText.ts"
import type { PairReceivable } from "../../core/domain/PairSync.ts"
import type { ReceivableState } from "../../core/domain/Resources.ts"
import type { Pair, PairWrites } from "../../core/ports/PairStore.ts"
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
// there); only the values that are JSON themselves are read as such: metadata and the payloads
// sent as planned (`json`) are checked, history's changes are parsed into `jsonb`.
const column = (values: ReadonlyArray<unknown>, element: number) => Result.getOrThrow(PgTypes.array(values, element))
export const texts = (values: ReadonlyArray<string | null>) => column(values, PgTypes.OID.text)
const bigints = (values: ReadonlyArray<number>) => column(values.map(BigInt), PgTypes.OID.int8)
const dates = (values: ReadonlyArray<string | null>) => column(values, PgTypes.OID.date)
const timestamps = (values: ReadonlyArray<Date>) => column(values, PgTypes.OID.timestamptz)
const jsons = (values: ReadonlyArray<unknown>) => column(values, PgTypes.OID.json)

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

/** The event types whose payload is the receivable as written (and, updated, its changes). */
const snapshotTypes: ReadonlySet<string> = new Set(["receivable.created", "receivable.updated"])

// A chunk's whole plan as the common table expressions of one statement (one round trip): new
// receivables, changed ones, their history and the events. History's reference to its receivable
// is checked at the statement's end.
//
// The events that carry a receivable (created, updated) get their payload in the statement, from
// the very values it writes: each receivable crosses the wire once, not again inside its event,
// and Node serializes no such payload. The text is the one `JSON.stringify` gives the plan's
// payload, key for key and escape for escape (`to_json` escapes a text as it does), so the feed
// serves the same bytes either way; a property test holds the two together. The other events'
// payloads are sent as planned.
export const pairWritesSql =
  (sql: SqlClient.SqlClient): PairWritesSql =>
  (integration, plan, at, place) => {
    const receivableRows = (rows: ReadonlyArray<PairReceivable>, extra: Statement.Fragment) => {
      const states = rows.map((r) => r.state)
      return sql`unnest(
        ${texts(rows.map((r) => r.id))}::text[], ${texts(rows.map((r) => r.documentKey))}::text[],
        ${texts(states.map((s) => s.vendorReceivableId))}::text[],
        ${bigints(states.map((s) => s.amountCents))}::bigint[], ${texts(states.map((s) => s.currency))}::text[],
        ${dates(states.map((s) => s.receivableDate))}::date[], ${dates(states.map((s) => s.dueDate))}::date[],
        ${texts(states.map((s) => s.status))}::text[], ${texts(states.map((s) => s.portalStatus))}::text[],
        ${texts(states.map((s) => s.poNumber))}::text[], ${jsons(states.map((s) => s.metadata))}::json[]${extra}
      )`
    }
    const rowColumns = `id, document_key, vendor_receivable_id, amount_cents, currency, receivable_date, due_date,
      status, portal_status, po_number, metadata`
    const org = integration.orgId
    const { vendor, debtor } = integration.refs
    // The pair's references and the sync's time as the payload's text has them.
    const refs = JSON.stringify({
      vendor: { id: vendor.id, name: vendor.name },
      debtor: { id: debtor.id, name: debtor.name }
    })
    const refsText = `,${refs.slice(1, -1)}`
    const atText = JSON.stringify(isoInstant(at.getTime()))
    // `receivableSnapshot` of core as text, for the written row `row`.
    const snapshotOf = (row: "n" | "c", detectedAt: Statement.Fragment) => {
      const w = sql.literal(row)
      return sql`'{"id":' || to_json(${w}.id)::text
        || ',"object":"receivable","vendor_receivable_id":' || coalesce(to_json(${w}.vendor_receivable_id)::text, 'null')
        || ${refsText}::text || ',"amount_cents":' || ${w}.amount_cents::text
        || ',"currency":' || to_json(${w}.currency)::text || ',"receivable_date":' || to_json(${w}.receivable_date)::text
        || ',"due_date":' || coalesce(to_json(${w}.due_date)::text, 'null') || ',"status":' || to_json(${w}.status)::text
        || ',"portal_status":' || to_json(${w}.portal_status)::text
        || ',"po_number":' || coalesce(to_json(${w}.po_number)::text, 'null')
        || ',"detected_at":' || ${detectedAt} || ',"updated_at":' || ${atText}::text
        || ',"metadata":' || ${w}.metadata::text || '}'`
    }
    const writes: Array<Statement.Fragment> = []
    if (plan.inserts.length > 0) {
      writes.push(sql`new_rows AS MATERIALIZED (
        SELECT * FROM ${receivableRows(plan.inserts, sql``)} AS n(${sql.literal(rowColumns)}))`)
      writes.push(sql`inserted AS (
        INSERT INTO receivables (org_id, id, integration_id, vendor_id, debtor_id, document_key, vendor_receivable_id,
          amount_cents, currency, receivable_date, due_date, status, portal_status, po_number, metadata,
          detected_at, updated_at)
        SELECT ${org}, n.id, ${integration.id}, ${vendor.id}, ${debtor.id},
          n.document_key, n.vendor_receivable_id, n.amount_cents, n.currency, n.receivable_date, n.due_date,
          n.status, n.portal_status, n.po_number, n.metadata, ${at}, ${at}
        FROM new_rows n)`)
    }
    if (plan.updates.length > 0) {
      // Each update also carries its history entry's changes, as JSON text (written to history as
      // `jsonb`, spliced into the event as it is), and when its receivable was first detected.
      const extra = sql`,
        ${texts(plan.updates.map((u) => JSON.stringify(u.history.changes)))}::text[],
        ${texts(plan.updates.map((u) => JSON.stringify(isoInstant(DateTime.toEpochMillis(u.detectedAt)))))}::text[]`
      writes.push(sql`changed_rows AS MATERIALIZED (
        SELECT * FROM ${receivableRows(plan.updates, extra)} AS c(${sql.literal(rowColumns)}, changes, detected))`)
      writes.push(sql`updated AS (
        UPDATE receivables p SET vendor_receivable_id = c.vendor_receivable_id, amount_cents = c.amount_cents,
          currency = c.currency, receivable_date = c.receivable_date, due_date = c.due_date, status = c.status,
          portal_status = c.portal_status, po_number = c.po_number, metadata = c.metadata, updated_at = ${at}
        FROM changed_rows c
        WHERE p.org_id = ${org} AND p.id = c.id)`)
      writes.push(sql`history AS (
        INSERT INTO receivable_history (org_id, receivable_id, changed_at, changes)
        SELECT ${org}, c.id, ${at}, c.changes::jsonb FROM changed_rows c)`)
    }
    if (plan.events.length > 0) {
      const created = plan.inserts.length > 0
      const updated = plan.updates.length > 0
      // A created event without its new row, or an updated one without its change, gets no
      // payload, which the column refuses: the plan and the writes cannot drift apart unseen.
      writes.push(sql`events AS (
        INSERT INTO events (batch, ordinal, org_id, type, receivable_id, created_at, data)
        SELECT ${place.batch.toString()}::bigint, ${place.firstOrdinal - 1} + e.ordinal, ${org}, e.type, e.receivable_id,
          e.created_at, CASE e.type
            ${created ? sql`WHEN 'receivable.created' THEN ('{"receivable":' || ${snapshotOf("n", sql`${atText}::text`)} || '}')::json` : sql``}
            ${updated ? sql`WHEN 'receivable.updated' THEN ('{"receivable":' || ${snapshotOf("c", sql`c.detected`)} || ',"changes":' || c.changes || '}')::json` : sql``}
            ELSE e.data END
        FROM unnest(
          ${texts(plan.events.map((e) => e.type))}::text[], ${texts(plan.events.map((e) => e.receivableId))}::text[],
          ${timestamps(plan.events.map((e) => DateTime.toDateUtc(e.createdAt)))}::timestamptz[],
          ${jsons(plan.events.map((e) => (snapshotTypes.has(e.type) ? null : e.data)))}::json[]
        ) WITH ORDINALITY AS e(type, receivable_id, created_at, data, ordinal)
        ${created ? sql`LEFT JOIN new_rows n ON e.type = 'receivable.created' AND n.id = e.receivable_id` : sql``}
        ${updated ? sql`LEFT JOIN changed_rows c ON e.type = 'receivable.updated' AND c.id = e.receivable_id` : sql``})`)
    }
    return writes
  }
