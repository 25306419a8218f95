/**
 * Finding receivables on the dashboard, over the `ReceivableSearch` port: the search text is
 * trimmed and bounded, the order defaults to the newest detected first, and pages are numbered
 * from 1. The organization's totals per status and currency come through unchanged. Depends on
 * `effect` and the core alone.
 */
import { Context, Effect, Layer, Schema } from "effect"
import type { OrgId } from "../../shared/domain/Ids.ts"
import { pageWindow } from "../../shared/domain/Pagination.ts"
import { ReceivableSearch, type SearchOrder, type SearchPage, type StatusTotal } from "../ports/ReceivableSearch.ts"
import type { ReceivableFilter } from "../ports/ReceivableStore.ts"

/** Invoice and PO numbers are short; a longer text cannot match and is refused, not run. */
export const searchTextMaximum = 100

/** Nothing sorts before the newest: what a person looking for a receivable most often wants. */
export const defaultOrder: SearchOrder = { key: "detected", descending: true }

export class SearchTextTooLong extends Schema.TaggedError<SearchTextTooLong>()("SearchTextTooLong", {
  length: Schema.Number
}) {}

export interface FindQuery {
  /** As typed; blank finds every receivable. */
  readonly text: string
  readonly filter: ReceivableFilter
  readonly order: SearchOrder
  readonly page: number
  readonly pageSize: number
  readonly metadata?: boolean | undefined
}

export class ReceivableFinder extends Context.Service<
  ReceivableFinder,
  {
    readonly find: (org: OrgId, query: FindQuery) => Effect.Effect<SearchPage, SearchTextTooLong>
    readonly totals: (org: OrgId) => Effect.Effect<ReadonlyArray<StatusTotal>>
  }
>()("core/ReceivableFinder") {
  static readonly layer = Layer.effect(
    ReceivableFinder,
    Effect.gen(function* () {
      const search = yield* ReceivableSearch

      const find = Effect.fn("ReceivableFinder.find")(function* (org: OrgId, query: FindQuery) {
        const text = query.text.trim()
        if (text.length > searchTextMaximum) return yield* new SearchTextTooLong({ length: text.length })
        return yield* search.search(org, {
          text: text === "" ? undefined : text,
          filter: query.filter,
          order: query.order,
          window: pageWindow(query.page, query.pageSize),
          metadata: query.metadata
        })
      })

      const totals = (org: OrgId) => search.totals(org).pipe(Effect.withSpan("ReceivableFinder.totals"))

      return ReceivableFinder.of({ find, totals })
    })
  )
}
