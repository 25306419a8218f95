/**
 * The read side of the API as a service over the `ReceivableStore` port: applies the list rules
 * (defaults, the 24-hour window, paging, expansion) and turns "not there" into a domain error.
 */
import { Context, DateTime, Effect, Layer, Option, Schema } from "effect"
import type { DebtorId, OrgId, VendorId } from "../domain/Ids.ts"
import { ReceivableId } from "../domain/Ids.ts"
import { defaultVerifiedSince, parseVerifiedSince } from "../domain/ListQuery.ts"
import { hasMore, pageWindow } from "../domain/Pagination.ts"
import type { Debtor, Receivable, Vendor } from "../domain/Resources.ts"
import type { Status } from "../domain/Status.ts"
import { ReceivableStore } from "../ports/ReceivableStore.ts"

export class ReceivableNotFound extends Schema.TaggedError<ReceivableNotFound>()("ReceivableNotFound", {
  id: Schema.String
}) {}

export interface ListReceivablesQuery {
  readonly vendorId?: VendorId | undefined
  readonly debtorId?: DebtorId | undefined
  readonly status?: Status | undefined
  /** `all`, a date-time or a date; the last 24 hours when absent. */
  readonly verifiedSince?: string | undefined
  readonly expand?: ReadonlyArray<"history" | "metadata"> | undefined
  readonly historyLimit: number
  readonly page: number
  readonly limit: number
}

export interface ReceivablesList {
  readonly items: ReadonlyArray<Receivable>
  readonly totalCount: number
  readonly hasMore: boolean
}

const isReceivableId = Schema.is(ReceivableId)

export class Receivables extends Context.Service<
  Receivables,
  {
    readonly list: (org: OrgId, query: ListReceivablesQuery) => Effect.Effect<ReceivablesList>
    readonly get: (org: OrgId, id: string, historyLimit: number) => Effect.Effect<Receivable, ReceivableNotFound>
    readonly vendors: (org: OrgId, debtorId?: DebtorId) => Effect.Effect<ReadonlyArray<Vendor>>
    readonly debtors: (org: OrgId, vendorId?: VendorId) => Effect.Effect<ReadonlyArray<Debtor>>
  }
>()("core/Receivables") {
  static readonly layer = Layer.effect(
    Receivables,
    Effect.gen(function* () {
      const store = yield* ReceivableStore

      const list = Effect.fn("Receivables.list")(function* (org: OrgId, query: ListReceivablesQuery) {
        const now = yield* DateTime.now
        const since =
          query.verifiedSince === undefined
            ? defaultVerifiedSince(now)
            : Option.getOrElse(parseVerifiedSince(query.verifiedSince), () => defaultVerifiedSince(now))
        const page = yield* store.listReceivables(org, {
          filter: {
            vendorId: query.vendorId,
            debtorId: query.debtorId,
            status: query.status,
            updatedSince: since._tag === "Since" ? since.at : undefined
          },
          window: pageWindow(query.page, query.limit),
          history: query.expand?.includes("history") ? Option.some(query.historyLimit) : Option.none(),
          metadata: query.expand?.includes("metadata") ?? false
        })
        return { ...page, hasMore: hasMore(query.page, query.limit, page.totalCount) }
      })

      const get = Effect.fn("Receivables.get")(function* (org: OrgId, id: string, historyLimit: number) {
        // A malformed id cannot exist: it is "not found" without a query.
        const found = isReceivableId(id) ? yield* store.getReceivable(org, id, historyLimit) : Option.none()
        if (Option.isNone(found)) return yield* new ReceivableNotFound({ id })
        return found.value
      })

      const vendors = (org: OrgId, debtorId?: DebtorId) =>
        store.listVendors(org, { debtorId }).pipe(Effect.withSpan("Receivables.vendors"))
      const debtors = (org: OrgId, vendorId?: VendorId) =>
        store.listDebtors(org, { vendorId }).pipe(Effect.withSpan("Receivables.debtors"))

      return Receivables.of({ list, get, vendors, debtors })
    })
  )
}
