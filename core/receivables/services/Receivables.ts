/**
 * The read side of the API as a service over the `ReceivableStore` port: applies the list rules
 * (defaults, the 24-hour window, paging by number or after an item, expansion) and turns "not
 * there" into a domain error. A page that expands metadata or history is read a few receivables
 * at a time and cut short once it would pass the largest answer allowed (`maxAnswerBytes`, 8 MiB
 * by default): `hasMore` then says so, and the page continues after its last item. So a page of
 * the heaviest receivables the portals may send is never held whole in memory.
 */
import { Context, DateTime, Effect, Layer, Option, Schema } from "effect"
import type { DebtorId, OrgId, VendorId } from "../../shared/domain/Ids.ts"
import { ReceivableId } from "../../shared/domain/Ids.ts"
import { defaultVerifiedSince, parseVerifiedSince } from "../../shared/domain/ListQuery.ts"
import { hasMore, pageWindow } from "../../shared/domain/Pagination.ts"
import * as AnswerSize from "../domain/AnswerSize.ts"
import type { Debtor, Integration, Receivable, Vendor } from "../domain/Resources.ts"
import type { Status } from "../domain/Status.ts"
import {
  type IntegrationFilter,
  ReceivableStore,
  type ReceivablesPageRequest,
  type StartingAfterNotFound
} from "../ports/ReceivableStore.ts"
import * as PageParts from "./PageParts.ts"

export class ReceivableNotFound extends Schema.TaggedError<ReceivableNotFound>()("ReceivableNotFound", {
  id: Schema.String
}) {}

/**
 * A page number other than 1 together with `startingAfter`. Refused rather than combined: "page
 * 3 after X" would be an offset from a cursor, which brings back the skips keyset paging exists
 * to avoid, and either reading of it would surprise someone.
 */
export class PageWithStartingAfter extends Schema.TaggedError<PageWithStartingAfter>()("PageWithStartingAfter", {
  page: Schema.Number
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
  /** Keyset paging: the page continues after this receivable, in list order; `page` must then be 1. */
  readonly startingAfter?: ReceivableId | undefined
}

export interface ReceivablesList {
  readonly items: ReadonlyArray<Receivable>
  readonly totalCount: number
  readonly hasMore: boolean
  /** The instant to pass back as `verified_since` so that no later commit is missed. */
  readonly nextVerifiedSince: DateTime.Utc
}

const isReceivableId = Schema.is(ReceivableId)

export class Receivables extends Context.Service<
  Receivables,
  {
    readonly list: (
      org: OrgId,
      query: ListReceivablesQuery
    ) => Effect.Effect<ReceivablesList, PageWithStartingAfter | StartingAfterNotFound>
    /**
     * A page that expands metadata or history, as it is read (`PageParts`): for writing a large
     * answer while its next rows are read. Its items and `hasMore` are those `list` answers.
     */
    readonly listInParts: (
      org: OrgId,
      query: ListReceivablesQuery
    ) => Effect.Effect<PageParts.PageInParts, PageWithStartingAfter | StartingAfterNotFound>
    readonly get: (org: OrgId, id: string, historyLimit: number) => Effect.Effect<Receivable, ReceivableNotFound>
    readonly vendors: (org: OrgId, debtorId?: DebtorId) => Effect.Effect<ReadonlyArray<Vendor>>
    readonly debtors: (org: OrgId, vendorId?: VendorId) => Effect.Effect<ReadonlyArray<Debtor>>
    readonly integrations: (org: OrgId, filter: IntegrationFilter) => Effect.Effect<ReadonlyArray<Integration>>
  }
>()("core/Receivables") {
  /** The service with the largest answer a page of receivables may make. */
  static readonly layerWith = (options: { readonly maxAnswerBytes: number }) =>
    Layer.effect(
      Receivables,
      Effect.gen(function* () {
        const store = yield* ReceivableStore

        /** What a list query asks of the store; refused when it mixes `page` and `startingAfter`. */
        const pageRequest = Effect.fnUntraced(function* (query: ListReceivablesQuery) {
          if (query.startingAfter !== undefined && query.page !== 1) {
            return yield* new PageWithStartingAfter({ page: query.page })
          }
          const now = yield* DateTime.now
          const since =
            query.verifiedSince === undefined
              ? defaultVerifiedSince(now)
              : Option.getOrElse(parseVerifiedSince(query.verifiedSince), () => defaultVerifiedSince(now))
          return {
            filter: {
              vendorId: query.vendorId,
              debtorId: query.debtorId,
              status: query.status,
              updatedSince: since._tag === "Since" ? since.at : undefined
            },
            window: pageWindow(query.page, query.limit),
            startingAfter: query.startingAfter,
            history: query.expand?.includes("history") ? Option.some(query.historyLimit) : Option.none(),
            metadata: query.expand?.includes("metadata") ?? false
          } satisfies ReceivablesPageRequest
        })

        const listInParts = Effect.fn("Receivables.listInParts")(function* (org: OrgId, query: ListReceivablesQuery) {
          return yield* PageParts.readInParts(store, org, yield* pageRequest(query), options.maxAnswerBytes)
        })

        const list = Effect.fn("Receivables.list")(function* (org: OrgId, query: ListReceivablesQuery) {
          const request = yield* pageRequest(query)
          if (query.expand !== undefined && query.expand.length > 0) {
            const page = yield* PageParts.readInParts(store, org, request, options.maxAnswerBytes)
            const { items, hasMore } = yield* PageParts.collect(page)
            return { items, totalCount: page.totalCount, hasMore, nextVerifiedSince: page.nextVerifiedSince }
          }
          const page = yield* store.listReceivables(org, request)
          return {
            items: page.items,
            totalCount: page.totalCount,
            // Counted from the cursor when there is one: the page is the first after it.
            hasMore: hasMore(query.page, query.limit, page.followingCount),
            nextVerifiedSince: page.nextVerifiedSince
          }
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

        const integrations = (org: OrgId, filter: IntegrationFilter) =>
          store.listIntegrations(org, filter).pipe(Effect.withSpan("Receivables.integrations"))

        return Receivables.of({ list, listInParts, get, vendors, debtors, integrations })
      })
    )

  static readonly layer = Receivables.layerWith({ maxAnswerBytes: AnswerSize.defaultMaxAnswerBytes })
}
