/**
 * The receivables list's filters as a CSV download (`/dashboard/receivables.csv`): every matching
 * receivable, read 500 at a time and written as it comes (`Csv.ts`): keyset pages, first detected
 * first, or, when a text is searched, the search's numbered pages, newest first. Members and admins alike: it is what the
 * list shows them. A filter the list would refuse is refused here too (400).
 */
import { DateTime, Effect, Option } from "effect"
import { type HttpRouter, HttpServerRequest } from "effect/http"
import type { Receivable } from "../../../../core/receivables/domain/Resources.ts"
import { Status } from "../../../../core/receivables/domain/Status.ts"
import { defaultOrder, ReceivableFinder } from "../../../../core/receivables/services/ReceivableFinder.ts"
import { Receivables } from "../../../../core/receivables/services/Receivables.ts"
import { DebtorId, type ReceivableId, VendorId } from "../../../../core/shared/domain/Ids.ts"
import * as Csv from "../frame/Csv.ts"
import { type Guards, htmlPage, queryOf, viewerOf } from "../frame/Handlers.ts"
import * as Pages from "../frame/Pages.ts"
import { problemOf } from "./ReceivableRoutes.ts"

export const exportPath = "/dashboard/receivables.csv"

/** Receivables read per query while the file is written. */
const chunk = 500

const header = [
  "id",
  "vendor_receivable_id",
  "vendor",
  "debtor",
  "status",
  "portal_status",
  "amount_cents",
  "currency",
  "receivable_date",
  "due_date",
  "po_number",
  "detected_at",
  "updated_at"
]

const rowOf = (item: Receivable) => [
  item.id,
  item.vendorReceivableId,
  item.vendor.name,
  item.debtor.name,
  item.status,
  item.portalStatus,
  item.amountCents,
  item.currency,
  item.receivableDate,
  item.dueDate,
  item.poNumber,
  DateTime.formatIso(item.detectedAt),
  DateTime.formatIso(item.updatedAt)
]

export const register = Effect.fnUntraced(function* (router: HttpRouter.HttpRouter, guards: Guards) {
  const receivables = yield* Receivables
  const finder = yield* ReceivableFinder

  yield* router.add(
    "GET",
    exportPath,
    guards.signedIn((session) =>
      Effect.gen(function* () {
        const org = session.user.orgId
        const query = queryOf(yield* HttpServerRequest.HttpServerRequest)
        const field = (name: string) => (query.get(name) ?? "").trim()
        const filters = {
          text: field("q"),
          vendor: field("vendor"),
          debtor: field("debtor"),
          status: field("status"),
          verifiedSince: field("verified_since"),
          sort: "",
          order: "",
          page: ""
        }
        const problem = problemOf(filters)
        if (problem !== undefined) return htmlPage(Pages.refusal("Not exported", problem, viewerOf(session)), 400)
        const filter = {
          vendorId: filters.vendor === "" ? undefined : VendorId.make(filters.vendor),
          debtorId: filters.debtor === "" ? undefined : DebtorId.make(filters.debtor),
          status: Status.literals.find((status) => status === filters.status),
          // As the list: everything when no date is given.
          verifiedSince: filters.verifiedSince === "" ? ("all" as const) : filters.verifiedSince
        }
        // A search reads the finder's numbered pages (a search matches few rows); the rest reads
        // the list's keyset pages, which stay fast however deep.
        if (filters.text !== "") {
          const searched = (page: number) =>
            finder.find(org, { text: filters.text, filter, order: defaultOrder, page, pageSize: chunk }).pipe(
              // The text's length was checked above.
              Effect.orDie,
              Effect.map(
                (found) =>
                  [
                    found.items.map(rowOf),
                    page * chunk < found.totalCount && found.items.length > 0 ? Option.some(page + 1) : Option.none()
                  ] as const
              )
            )
          return Csv.download("receivables.csv", header, 1, searched)
        }
        const page = (startingAfter: Option.Option<ReceivableId>) =>
          receivables
            .list(org, {
              ...filter,
              historyLimit: 0,
              page: 1,
              limit: chunk,
              startingAfter: Option.getOrUndefined(startingAfter)
            })
            .pipe(
              // The cursor is the last item just read, so it exists; page 1 is the only page asked for.
              Effect.orDie,
              Effect.map((list) => {
                const last = list.items.at(-1)
                return [
                  list.items.map(rowOf),
                  list.hasMore && last !== undefined ? Option.some(Option.some(last.id)) : Option.none()
                ] as const
              })
            )
        return Csv.download("receivables.csv", header, Option.none<ReceivableId>(), page)
      })
    )
  )
})
