/** Row shapes several Postgres adapters read: a receivable's tracked columns, and a pair's. */

/** The columns a sync compares and the API shows; the driver reads a date as `YYYY-MM-DD` text. */
export interface ReceivableFieldsRow {
  readonly vendor_receivable_id: string | null
  readonly amount_cents: bigint | number
  readonly currency: string
  readonly receivable_date: string
  readonly due_date: string | null
  readonly status: string
  readonly portal_status: string
  readonly po_number: string | null
}

/** An integration with its vendor's and debtor's names, and its interval in milliseconds. */
export interface PairRow {
  readonly id: string
  readonly org_id: string
  readonly vendor_id: string
  readonly vendor_name: string
  readonly debtor_id: string
  readonly debtor_name: string
  readonly connector: string
  readonly interval_ms: number
  /** The pair's own sync deadline; null for the engine's default. */
  readonly deadline_ms: number | null
  readonly consecutive_failures: number
}
