/**
 * The receivable pages over the core's `Receivables`, the service the API reads through: the
 * list with the API's filters (vendor, debtor, status, verified since; all when empty) and keyset
 * paging after an item (`starting_after`), and one receivable with its history and metadata.
 * Filters are a GET form; a value the API would refuse is shown as a problem (400), never guessed.
 */
import { Effect, Option, Schema } from "effect"
import { HttpRouter, HttpServerRequest } from "effect/http"
import { DebtorId, ReceivableId, VendorId } from "../../../core/domain/Ids.ts"
import { parseVerifiedSince } from "../../../core/domain/ListQuery.ts"
import { Status } from "../../../core/domain/Status.ts"
import { Receivables } from "../../../core/services/Receivables.ts"
import { type Guards, htmlPage, notFound, queryOf, viewerOf } from "./Handlers.ts"
import * as ReceivablePages from "./ReceivablePages.ts"

/** Receivables per page. */
const pageSize = 50
/** History entries shown on a receivable's page. */
const historyShown = 100

const isVendorId = Schema.is(VendorId)
const isDebtorId = Schema.is(DebtorId)
const isStatus = Schema.is(Status)
const isReceivableId = Schema.is(ReceivableId)

/** What is wrong with the filters, if anything, in the words the page shows. */
export const problemOf = (filters: ReceivablePages.ListFilters, startingAfter: string) => {
  if (filters.vendor !== "" && !isVendorId(filters.vendor)) return "The vendor is not one of your vendors."
  if (filters.debtor !== "" && !isDebtorId(filters.debtor)) return "The debtor is not one of your debtors."
  if (filters.status !== "" && !isStatus(filters.status)) return "The status is not one of the six statuses."
  if (filters.verifiedSince !== "" && Option.isNone(parseVerifiedSince(filters.verifiedSince))) {
    return "“Verified since” is neither a date (2026-11-01) nor a date-time (2026-11-01T08:00:00Z)."
  }
  if (startingAfter !== "" && !isReceivableId(startingAfter)) return "The page to continue after is not a receivable."
  return undefined
}

export const register = Effect.fnUntraced(function* (router: HttpRouter.HttpRouter, guards: Guards) {
  const receivables = yield* Receivables
  const { signedIn } = guards

  yield* router.add(
    "GET",
    "/dashboard/receivables",
    signedIn((session) =>
      Effect.gen(function* () {
        const org = session.user.orgId
        const query = queryOf(yield* HttpServerRequest.HttpServerRequest)
        const field = (name: string) => (query.get(name) ?? "").trim()
        const filters = {
          vendor: field("vendor"),
          debtor: field("debtor"),
          status: field("status"),
          verifiedSince: field("verified_since")
        }
        const startingAfter = field("starting_after")
        const [vendors, debtors] = yield* Effect.all([receivables.vendors(org), receivables.debtors(org)], {
          concurrency: "unbounded"
        })
        const view = { filters, vendors, debtors, items: [], totalCount: 0, next: undefined, continued: false }
        const refused = (problem: string) =>
          htmlPage(ReceivablePages.list(viewerOf(session), { ...view, problem }), 400)

        const problem = problemOf(filters, startingAfter)
        if (problem !== undefined) return refused(problem)
        return yield* receivables
          .list(org, {
            vendorId: filters.vendor === "" ? undefined : VendorId.make(filters.vendor),
            debtorId: filters.debtor === "" ? undefined : DebtorId.make(filters.debtor),
            status: isStatus(filters.status) ? filters.status : undefined,
            // The API's default is the last 24 hours; people looking at their data want it all.
            verifiedSince: filters.verifiedSince === "" ? "all" : filters.verifiedSince,
            historyLimit: 0,
            page: 1,
            limit: pageSize,
            startingAfter: startingAfter === "" ? undefined : ReceivableId.make(startingAfter)
          })
          .pipe(
            Effect.map((list) => {
              const last = list.items.at(-1)
              return htmlPage(
                ReceivablePages.list(viewerOf(session), {
                  ...view,
                  items: list.items,
                  totalCount: list.totalCount,
                  next: list.hasMore && last !== undefined ? ReceivablePages.listPath(filters, last.id) : undefined,
                  continued: startingAfter !== "",
                  problem: undefined
                })
              )
            }),
            Effect.catchTags({
              StartingAfterNotFound: () => Effect.succeed(refused("The page to continue after is not a receivable.")),
              // Only page 1 is ever asked for.
              PageWithStartingAfter: Effect.die
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
        return yield* receivables.get(session.user.orgId, id, historyShown).pipe(
          Effect.map((receivable) => htmlPage(ReceivablePages.detail(viewerOf(session), receivable))),
          Effect.catchTag("ReceivableNotFound", () => Effect.succeed(notFound))
        )
      })
    )
  )
})
