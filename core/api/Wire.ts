/**
 * The JSON of the hot responses, written out by hand. Encoding a page of receivables through the
 * schemas re-checks every field of values that were checked when they were stored, and that
 * dominated the cost of a list request; this encoder trusts them. A property test holds it equal
 * to `Schema.encode` of the contract's schemas, so the wire format has one definition.
 */
import { DateTime } from "effect"
import {
  type Debtor,
  type HistoryEntry,
  type Receivable,
  type ReceivableList,
  receivableWireFields,
  type Vendor
} from "../receivables/domain/Resources.ts"
import { isoInstant } from "../shared/domain/IsoText.ts"

const iso = (instant: DateTime.Utc) => isoInstant(DateTime.toEpochMillis(instant))
const isoOrNull = (instant: DateTime.Utc | null) => (instant === null ? null : iso(instant))

const historyEntry = (entry: HistoryEntry) => ({ changed_at: iso(entry.changedAt), changes: entry.changes })

export const receivable = (r: Receivable) => ({
  ...receivableWireFields(r),
  estimated_next_update_at: isoOrNull(r.estimatedNextUpdateAt),
  ...(r.history === undefined ? {} : { history: r.history.map(historyEntry) }),
  ...(r.metadata === undefined ? {} : { metadata: r.metadata })
})

export const party = (p: Vendor | Debtor) => ({
  id: p.id,
  object: p.object,
  name: p.name,
  created_at: iso(p.createdAt),
  estimated_next_update_at: isoOrNull(p.estimatedNextUpdateAt)
})

export const page = <A, B>(items: ReadonlyArray<A>, encode: (item: A) => B, hasMore: boolean, totalCount: number) => ({
  object: "list" as const,
  data: items.map(encode),
  has_more: hasMore,
  total_count: totalCount
})

/** The receivables list's envelope (`ReceivableList`): a page and its watermark. */
export const receivablePage = (list: ReceivableList) => ({
  ...page(list.data, receivable, list.hasMore, list.totalCount),
  next_verified_since: iso(list.nextVerifiedSince)
})

export const list = <A, B>(items: ReadonlyArray<A>, encode: (item: A) => B) => ({
  object: "list" as const,
  data: items.map(encode),
  total_count: items.length
})
