/**
 * Handlers of the v1 groups: decode has already happened (contract schemas), the principal is
 * known (Authorization); each handler asks the core `Receivables` service within the caller's
 * organization and answers with the contract's JSON, written by `core/api/Wire.ts` on the hot
 * paths and by the contract's schema for the integrations (a short list, read rarely). A list
 * page that expands metadata or history and needs more than one read is written as it is read
 * (`transport/StreamedPage.ts`), its pieces made in the organization's turns (`transport/HeavyTurns.ts`);
 * every other answer is written whole.
 */
import { type DateTime, Effect, Layer } from "effect"
import { HttpServerResponse } from "effect/http"
import { HttpApiBuilder } from "effect/http-api"
import { Api } from "../../../core/api/Api.ts"
import { InvalidRequest, ResourceMissing } from "../../../core/api/Errors.ts"
import { CurrentPrincipal } from "../../../core/api/Security.ts"
import * as Wire from "../../../core/api/Wire.ts"
import type { Receivable } from "../../../core/receivables/domain/Resources.ts"
import type { StartingAfterNotFound } from "../../../core/receivables/ports/ReceivableStore.ts"
import { collect } from "../../../core/receivables/services/PageParts.ts"
import { type PageWithStartingAfter, Receivables } from "../../../core/receivables/services/Receivables.ts"
import * as HeavyTurns from "../transport/HeavyTurns.ts"
import * as StreamedPage from "../transport/StreamedPage.ts"

const jsonType = "application/json"

/** The list's refusals of the core, as the contract's 400s. */
const listErrors = {
  PageWithStartingAfter: ({ page }: PageWithStartingAfter) =>
    Effect.fail(
      InvalidRequest.parameterInvalid(
        "page",
        `"page" is ${page}, but "starting_after" is given: it continues after that item, so leave "page" out (or give 1).`
      )
    ),
  // The same answer whether the id is unknown or another organization's.
  StartingAfterNotFound: ({ id }: StartingAfterNotFound) =>
    Effect.fail(
      InvalidRequest.parameterInvalid(
        "starting_after",
        `No receivable "${id}" in your organization: pass the id of an item a list gave you.`
      )
    )
}

/** A whole page of the list, answered at once. */
const pageAnswer = (
  items: ReadonlyArray<Receivable>,
  hasMore: boolean,
  page: { readonly totalCount: number; readonly nextVerifiedSince: DateTime.Utc }
) =>
  HttpServerResponse.jsonUnsafe(
    Wire.receivablePage({
      object: "list",
      data: items,
      hasMore,
      totalCount: page.totalCount,
      nextVerifiedSince: page.nextVerifiedSince
    })
  )

const ReceivablesHandlers = HttpApiBuilder.group(
  Api,
  "receivables",
  Effect.fn(function* (handlers) {
    const receivables = yield* Receivables
    const heavyTurns = yield* HeavyTurns.HeavyTurns
    return handlers
      .handle("list", ({ query }) =>
        Effect.gen(function* () {
          const { orgId } = yield* CurrentPrincipal
          const asked = {
            vendorId: query.vendor_id,
            debtorId: query.debtor_id,
            status: query.status,
            verifiedSince: query.verified_since,
            expand: query["expand[]"],
            historyLimit: query.history_limit,
            page: query.page,
            limit: query.limit,
            startingAfter: query.starting_after
          }
          if (asked.expand !== undefined && asked.expand.length > 0) {
            const page = yield* receivables.listInParts(orgId, asked).pipe(Effect.catchTags(listErrors))
            if (!page.complete) {
              return HttpServerResponse.stream(StreamedPage.bytes(page, heavyTurns.of(orgId)), {
                contentType: jsonType
              })
            }
            // Read whole in one read: answered whole, with its ETag and length.
            const { items, hasMore } = yield* collect(page)
            return pageAnswer(items, hasMore, page)
          }
          const list = yield* receivables.list(orgId, asked).pipe(Effect.catchTags(listErrors))
          return pageAnswer(list.items, list.hasMore, list)
        })
      )
      .handle("get", ({ params, query }) =>
        Effect.gen(function* () {
          const { orgId } = yield* CurrentPrincipal
          const found = yield* receivables
            .get(orgId, params.id, query.history_limit)
            .pipe(Effect.catchTag("ReceivableNotFound", ({ id }) => Effect.fail(ResourceMissing.receivable(id))))
          return HttpServerResponse.jsonUnsafe(Wire.receivable(found))
        })
      )
  })
)

const VendorsHandlers = HttpApiBuilder.group(
  Api,
  "vendors",
  Effect.fn(function* (handlers) {
    const receivables = yield* Receivables
    return handlers.handle("list", ({ query }) =>
      Effect.gen(function* () {
        const { orgId } = yield* CurrentPrincipal
        return HttpServerResponse.jsonUnsafe(Wire.list(yield* receivables.vendors(orgId, query.debtor_id), Wire.party))
      })
    )
  })
)

const DebtorsHandlers = HttpApiBuilder.group(
  Api,
  "debtors",
  Effect.fn(function* (handlers) {
    const receivables = yield* Receivables
    return handlers.handle("list", ({ query }) =>
      Effect.gen(function* () {
        const { orgId } = yield* CurrentPrincipal
        return HttpServerResponse.jsonUnsafe(Wire.list(yield* receivables.debtors(orgId, query.vendor_id), Wire.party))
      })
    )
  })
)

const IntegrationsHandlers = HttpApiBuilder.group(
  Api,
  "integrations",
  Effect.fn(function* (handlers) {
    const receivables = yield* Receivables
    return handlers.handle("list", ({ query }) =>
      Effect.gen(function* () {
        const { orgId } = yield* CurrentPrincipal
        const data = yield* receivables.integrations(orgId, { vendorId: query.vendor_id, debtorId: query.debtor_id })
        return { object: "list" as const, data, totalCount: data.length }
      })
    )
  })
)

export const layer = Layer.mergeAll(
  ReceivablesHandlers.pipe(Layer.provide(HeavyTurns.layer)),
  VendorsHandlers,
  DebtorsHandlers,
  IntegrationsHandlers
)
