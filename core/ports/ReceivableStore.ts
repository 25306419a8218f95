/**
 * What the core needs from storage to answer queries: one organization's receivables, vendors and
 * debtors. Every method takes the organization; an implementation never returns another's rows.
 */
import { Context, type DateTime, type Effect, type Option } from "effect"
import type { DebtorId, OrgId, ReceivableId, VendorId } from "../domain/Ids.ts"
import type { PageWindow } from "../domain/Pagination.ts"
import type { Debtor, Receivable, Vendor } from "../domain/Resources.ts"
import type { Status } from "../domain/Status.ts"

export interface ReceivableFilter {
  readonly vendorId?: VendorId | undefined
  readonly debtorId?: DebtorId | undefined
  readonly status?: Status | undefined
  /** Only receivables whose `updated_at` is at or after this instant. */
  readonly updatedSince?: DateTime.Utc | undefined
}

export interface ReceivablesPageRequest {
  readonly filter: ReceivableFilter
  readonly window: PageWindow
  /** History entries per receivable, newest first; none when history is not wanted. */
  readonly history: Option.Option<number>
  readonly metadata: boolean
}

export interface ReceivablesPage {
  readonly items: ReadonlyArray<Receivable>
  readonly totalCount: number
}

export class ReceivableStore extends Context.Service<
  ReceivableStore,
  {
    /** A page in list order (`detected_at`, then id) and the number of all matches. */
    readonly listReceivables: (org: OrgId, request: ReceivablesPageRequest) => Effect.Effect<ReceivablesPage>
    /** One receivable with its metadata and its newest `historyLimit` history entries. */
    readonly getReceivable: (
      org: OrgId,
      id: ReceivableId,
      historyLimit: number
    ) => Effect.Effect<Option.Option<Receivable>>
    /** All vendors of the organization, by name then id; with a debtor, those billing it. */
    readonly listVendors: (
      org: OrgId,
      filter: { readonly debtorId?: DebtorId | undefined }
    ) => Effect.Effect<ReadonlyArray<Vendor>>
    /** The debtors the organization has receivables with, by name then id. */
    readonly listDebtors: (
      org: OrgId,
      filter: { readonly vendorId?: VendorId | undefined }
    ) => Effect.Effect<ReadonlyArray<Debtor>>
  }
>()("core/ReceivableStore") {}
