/**
 * The receivables list as a CSV download (`/dashboard/receivables.csv`): every receivable the
 * list's query matches, in the list's order (its `sort` and `order`; its `page` is ignored: the
 * file holds every page), read a chunk at a time and written as it comes (`Csv.ts`). Amounts are
 * plain decimals in their currency's digits, beside the currency. With `metadata=1`, a last
 * column holds each receivable's metadata as a JSON object, and fewer rows are read at a time,
 * since a portal's metadata runs to about 60 KB a receivable. Members and admins alike: it is what
 * the list shows them. A query the list would refuse is refused here too (400).
 */
import { DateTime, Effect, Option } from "effect"
import { type HttpRouter, HttpServerRequest } from "effect/http"
import type { Receivable } from "../../../../core/receivables/domain/Resources.ts"
import { ReceivableFinder } from "../../../../core/receivables/services/ReceivableFinder.ts"
import * as Csv from "../frame/Csv.ts"
import { type Guards, htmlPage, queryOf, viewerOf } from "../frame/Handlers.ts"
import * as Pages from "../frame/Pages.ts"
import { decimalAmount } from "../frame/Parts.ts"
import { filtersOf, orderOf } from "./ReceivablePages.ts"
import { findFilterOf, problemOf } from "./ReceivableRoutes.ts"

export const exportPath = "/dashboard/receivables.csv"

/** Receivables read per query while the file is written: without metadata, and with it (at most ~3 MB). */
const chunk = 500
const metadataChunk = 50

const header = [
  "id",
  "vendor_receivable_id",
  "vendor",
  "debtor",
  "status",
  "portal_status",
  "amount",
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
  decimalAmount(item.amountCents, item.currency),
  item.currency,
  item.receivableDate,
  item.dueDate,
  item.poNumber,
  DateTime.formatIso(item.detectedAt),
  DateTime.formatIso(item.updatedAt)
]

export const register = Effect.fnUntraced(function* (router: HttpRouter.HttpRouter, guards: Guards) {
  const finder = yield* ReceivableFinder

  yield* router.add(
    "GET",
    exportPath,
    guards.signedIn((session) =>
      Effect.gen(function* () {
        const org = session.user.orgId
        const query = queryOf(yield* HttpServerRequest.HttpServerRequest)
        const filters = filtersOf(query)
        const metadataOption = (query.get("metadata") ?? "").trim()
        const problem =
          problemOf(filters) ??
          (metadataOption === "" || metadataOption === "1" ? undefined : "metadata is either 1 (included) or left out.")
        if (problem !== undefined) return htmlPage(Pages.refusal("Not exported", problem, viewerOf(session)), 400)
        const metadata = metadataOption === "1"
        const pageSize = metadata ? metadataChunk : chunk
        // The list's numbered pages, so that any of its orders is kept; a page is read only after
        // the one before it is written.
        const read = (page: number) =>
          finder
            .find(org, {
              text: filters.text,
              filter: findFilterOf(filters),
              order: orderOf(filters),
              page,
              pageSize,
              metadata
            })
            .pipe(
              // The text's length was checked above.
              Effect.orDie,
              Effect.map(
                (found) =>
                  [
                    found.items.map((item) =>
                      metadata ? [...rowOf(item), JSON.stringify(item.metadata ?? {})] : rowOf(item)
                    ),
                    found.items.length === pageSize && page * pageSize < found.totalCount
                      ? Option.some(page + 1)
                      : Option.none()
                  ] as const
              )
            )
        return Csv.download("receivables.csv", metadata ? [...header, "metadata"] : header, 1, read)
      })
    )
  )
})
