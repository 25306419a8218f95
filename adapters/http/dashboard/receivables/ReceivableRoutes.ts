/**
 * The receivable pages: the list over the core's `ReceivableFinder` (a search by invoice number,
 * PO number or id, the API's filters, a chosen order, numbered pages) and one receivable over
 * `Receivables`, the service the API reads through, with a link back to the list it was found in.
 * A query the page cannot run is shown as the problem (400), never guessed at or shown as an
 * empty result.
 */
import { Effect, Option, Schema } from "effect"
import { HttpRouter, HttpServerRequest } from "effect/http"
import { Status } from "../../../../core/receivables/domain/Status.ts"
import { sortKeys } from "../../../../core/receivables/ports/ReceivableSearch.ts"
import { ReceivableFinder, searchTextMaximum } from "../../../../core/receivables/services/ReceivableFinder.ts"
import { Receivables } from "../../../../core/receivables/services/Receivables.ts"
import { DebtorId, VendorId } from "../../../../core/shared/domain/Ids.ts"
import { parseVerifiedSince } from "../../../../core/shared/domain/ListQuery.ts"
import { type Guards, htmlPage, notFound, queryOf, viewerOf } from "../frame/Handlers.ts"
import * as ReceivablePages from "./ReceivablePages.ts"

/** Receivables per page. */
const pageSize = 50
/** Pages past this are refused: 500,000 receivables in, nobody is paging any more, they search. */
const pageMaximum = 10_000
/** History entries shown on a receivable's page. */
const historyShown = 100

const isVendorId = Schema.is(VendorId)
const isDebtorId = Schema.is(DebtorId)
const isStatus = Schema.is(Status)

/** What is wrong with the query, if anything, in the words the page shows. */
export const problemOf = (filters: ReceivablePages.ListFilters) => {
  if (filters.text.length > searchTextMaximum) {
    return `the search text is longer than ${searchTextMaximum} characters, which no invoice or PO number is.`
  }
  if (filters.vendor !== "" && !isVendorId(filters.vendor)) return "the vendor is not one of your vendors."
  if (filters.debtor !== "" && !isDebtorId(filters.debtor)) return "the debtor is not one of your debtors."
  if (filters.status !== "" && !isStatus(filters.status)) return "the status is not one of the six statuses."
  if (filters.verifiedSince !== "" && Option.isNone(parseVerifiedSince(filters.verifiedSince))) {
    return "“Changed since” is neither a date (2026-11-01) nor a date-time (2026-11-01T08:00:00Z)."
  }
  if (filters.sort !== "" && !(sortKeys as ReadonlyArray<string>).includes(filters.sort)) {
    return `the list can be sorted by ${sortKeys.join(", ")} only.`
  }
  if (filters.order !== "" && filters.order !== "asc" && filters.order !== "desc") {
    return "the order is either asc or desc."
  }
  if (filters.page !== "" && !(/^[1-9][0-9]{0,4}$/.test(filters.page) && Number(filters.page) <= pageMaximum)) {
    return `the page is a whole number from 1 to ${pageMaximum}.`
  }
  return undefined
}

/** The core's filter for a query `problemOf` passed: "changed since" as the list reads it. */
export const findFilterOf = (filters: ReceivablePages.ListFilters) => {
  const since = filters.verifiedSince === "" ? Option.none() : parseVerifiedSince(filters.verifiedSince)
  return {
    vendorId: filters.vendor === "" ? undefined : VendorId.make(filters.vendor),
    debtorId: filters.debtor === "" ? undefined : DebtorId.make(filters.debtor),
    status: isStatus(filters.status) ? filters.status : undefined,
    updatedSince: Option.isSome(since) && since.value._tag === "Since" ? since.value.at : undefined
  }
}

export const register = Effect.fnUntraced(function* (router: HttpRouter.HttpRouter, guards: Guards) {
  const receivables = yield* Receivables
  const finder = yield* ReceivableFinder
  const { signedIn } = guards

  yield* router.add(
    "GET",
    "/dashboard/receivables",
    signedIn((session) =>
      Effect.gen(function* () {
        const org = session.user.orgId
        const filters = ReceivablePages.filtersOf(queryOf(yield* HttpServerRequest.HttpServerRequest))
        const [vendors, debtors] = yield* Effect.all([receivables.vendors(org), receivables.debtors(org)], {
          concurrency: "unbounded"
        })
        const page = filters.page === "" ? 1 : Number(filters.page)
        const view = { filters, vendors, debtors, items: [], totalCount: 0, page, pageSize }
        // An id of no vendor or debtor of the organization is refused, as a malformed one is.
        const problem =
          problemOf(filters) ??
          (filters.vendor !== "" && !vendors.some((vendor) => vendor.id === filters.vendor.toLowerCase())
            ? "the vendor is not one of your vendors."
            : filters.debtor !== "" && !debtors.some((debtor) => debtor.id === filters.debtor.toLowerCase())
              ? "the debtor is not one of your debtors."
              : undefined)
        if (problem !== undefined) return htmlPage(ReceivablePages.list(viewerOf(session), { ...view, problem }), 400)
        const found = yield* finder
          .find(org, {
            text: filters.text,
            filter: findFilterOf(filters),
            order: ReceivablePages.orderOf(filters),
            page,
            pageSize
          })
          // The length was checked above, in the words of the page.
          .pipe(Effect.orDie)
        return htmlPage(
          ReceivablePages.list(viewerOf(session), {
            ...view,
            items: found.items,
            totalCount: found.totalCount,
            problem: undefined
          })
        )
      })
    )
  )

  yield* router.add(
    "GET",
    "/dashboard/receivables/:id",
    signedIn((session) =>
      Effect.gen(function* () {
        const id = (yield* HttpRouter.params).id ?? ""
        // The list it was found in, rebuilt from its known parameters only: never a link elsewhere.
        const from = queryOf(yield* HttpServerRequest.HttpServerRequest).get("from") ?? ""
        const back = ReceivablePages.listPath(ReceivablePages.filtersOf(new URLSearchParams(from)))
        return yield* receivables.get(session.user.orgId, id, historyShown).pipe(
          Effect.map((receivable) => htmlPage(ReceivablePages.detail(viewerOf(session), receivable, back))),
          Effect.catchTag("ReceivableNotFound", () => Effect.succeed(notFound))
        )
      })
    )
  )
})
