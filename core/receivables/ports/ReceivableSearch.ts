/**
 * What the dashboard reads beyond the API's list: receivables found by the start of their invoice
 * number, PO number or id, in the order a person chose, a page at a time; and the organization's
 * amounts per status and currency. Every method takes the organization; an implementation never
 * reads another's rows.
 */
import { Context, type Effect } from "effect"
import type { OrgId } from "../../shared/domain/Ids.ts"
import type { PageWindow } from "../../shared/domain/Pagination.ts"
import type { Receivable } from "../domain/Resources.ts"
import type { Status } from "../domain/Status.ts"
import type { ReceivableFilter } from "./ReceivableStore.ts"

/**
 * The columns a search may be ordered by; ties fall back to the newest detected, then the id.
 * Amounts of different currencies do not compare: "amount" orders by currency, then amount, then
 * id, all three in the direction asked.
 */
export const sortKeys = ["detected", "updated", "amount", "due"] as const
export type SortKey = (typeof sortKeys)[number]

export interface SearchOrder {
  readonly key: SortKey
  readonly descending: boolean
}

export interface SearchRequest {
  /**
   * Matches a receivable whose invoice number or PO number starts with it, ignoring letter case,
   * or whose id starts with it (an exact value is its own prefix). None: every receivable.
   */
  readonly text: string | undefined
  readonly filter: ReceivableFilter
  readonly order: SearchOrder
  readonly window: PageWindow
  /** Each item's metadata too (a CSV export's option); without it, none. */
  readonly metadata?: boolean | undefined
}

export interface SearchPage {
  readonly items: ReadonlyArray<Receivable>
  readonly totalCount: number
}

/** The receivables of one status in one currency. */
export interface StatusTotal {
  readonly status: Status
  readonly currency: string
  readonly count: number
  readonly amountCents: number
}

export class ReceivableSearch extends Context.Service<
  ReceivableSearch,
  {
    readonly search: (org: OrgId, request: SearchRequest) => Effect.Effect<SearchPage>
    /** By status in the statuses' order, then by currency. */
    readonly totals: (org: OrgId) => Effect.Effect<ReadonlyArray<StatusTotal>>
  }
>()("core/ReceivableSearch") {}
