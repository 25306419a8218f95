/**
 * What the core needs from storage to answer queries: one organization's receivables, vendors,
 * debtors and integrations. Every method takes the organization; an implementation never returns
 * another's rows.
 */
import { Context, type DateTime, type Effect, type Option, Schema } from "effect"
import type { DebtorId, OrgId, ReceivableId, VendorId } from "../../shared/domain/Ids.ts"
import type { PageWindow } from "../../shared/domain/Pagination.ts"
import type { Debtor, Integration, Receivable, Vendor } from "../domain/Resources.ts"
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
  /** Counted from the start of the result, or from `startingAfter` when given. */
  readonly window: PageWindow
  /**
   * Keyset paging: the page begins after this receivable's place in list order, read from its own
   * `detected_at` and id whether or not it matches the filter.
   */
  readonly startingAfter?: ReceivableId | undefined
  /** History entries per receivable, newest first; none when history is not wanted. */
  readonly history: Option.Option<number>
  readonly metadata: boolean
}

export interface ReceivablesPage {
  readonly items: ReadonlyArray<Receivable>
  /** All matches of the filter. */
  readonly totalCount: number
  /** The matches after `startingAfter` (all of them without it): what `has_more` is measured against. */
  readonly followingCount: number
  /**
   * The safe watermark as of this read (`nextVerifiedSince` in `core/shared/domain/ListQuery.ts`), on the
   * clock that writes `updated_at` and the pairs' in-flight marks, read with the page.
   */
  readonly nextVerifiedSince: DateTime.Utc
}

/**
 * A later read of a page already begun (`continuePage`): its items, and the matches after its
 * cursor counted only as far as `window.offset + window.limit + 1`, which tells whether more follow.
 */
export interface ReceivablesChunk {
  readonly items: ReadonlyArray<Receivable>
  readonly followingCount: number
}

/** `startingAfter` names no receivable of the organization (another's is no different). */
export class StartingAfterNotFound extends Schema.TaggedError<StartingAfterNotFound>()("StartingAfterNotFound", {
  id: Schema.String
}) {}

export interface IntegrationFilter {
  readonly vendorId?: VendorId | undefined
  readonly debtorId?: DebtorId | undefined
}

export class ReceivableStore extends Context.Service<
  ReceivableStore,
  {
    /** A page in list order (`detected_at`, then id), the counts and the watermark, in one snapshot. */
    readonly listReceivables: (
      org: OrgId,
      request: ReceivablesPageRequest
    ) => Effect.Effect<ReceivablesPage, StartingAfterNotFound>
    /**
     * The next chunk of a page whose first read gave the counts and the watermark: the same items
     * `listReceivables` gives, without counting every match.
     */
    readonly continuePage: (
      org: OrgId,
      request: ReceivablesPageRequest & { readonly startingAfter: ReceivableId }
    ) => Effect.Effect<ReceivablesChunk, StartingAfterNotFound>
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
    /** The organization's pairs (of the vendor and debtor, if given), by vendor name, debtor name, then id. */
    readonly listIntegrations: (org: OrgId, filter: IntegrationFilter) => Effect.Effect<ReadonlyArray<Integration>>
  }
>()("core/ReceivableStore") {}
