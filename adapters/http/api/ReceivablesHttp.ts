/**
 * Handlers of the v1 groups: decode has already happened (contract schemas), the principal is
 * known (Authorization); each handler asks the core `Receivables` service within the caller's
 * organization and answers with the contract's JSON, written by `core/api/Wire.ts` on the hot
 * paths and by the contract's schema for the integrations (a short list, read rarely).
 */
import { Effect, Layer } from "effect"
import { HttpServerResponse } from "effect/http"
import { HttpApiBuilder } from "effect/http-api"
import { Api } from "../../../core/api/Api.ts"
import { InvalidRequest, ResourceMissing } from "../../../core/api/Errors.ts"
import { CurrentPrincipal } from "../../../core/api/Security.ts"
import * as Wire from "../../../core/api/Wire.ts"
import { Receivables } from "../../../core/services/Receivables.ts"

const ReceivablesHandlers = HttpApiBuilder.group(
  Api,
  "receivables",
  Effect.fn(function* (handlers) {
    const receivables = yield* Receivables
    return handlers
      .handle("list", ({ query }) =>
        Effect.gen(function* () {
          const { orgId } = yield* CurrentPrincipal
          const list = yield* receivables
            .list(orgId, {
              vendorId: query.vendor_id,
              debtorId: query.debtor_id,
              status: query.status,
              verifiedSince: query.verified_since,
              expand: query["expand[]"],
              historyLimit: query.history_limit,
              page: query.page,
              limit: query.limit,
              startingAfter: query.starting_after
            })
            .pipe(
              Effect.catchTags({
                PageWithStartingAfter: ({ page }) =>
                  Effect.fail(
                    InvalidRequest.parameterInvalid(
                      "page",
                      `"page" is ${page}, but "starting_after" is given: it continues after that item, so leave "page" out (or give 1).`
                    )
                  ),
                // The same answer whether the id is unknown or another organization's.
                StartingAfterNotFound: ({ id }) =>
                  Effect.fail(
                    InvalidRequest.parameterInvalid(
                      "starting_after",
                      `No receivable "${id}" in your organization: pass the id of an item a list gave you.`
                    )
                  )
              })
            )
          return HttpServerResponse.jsonUnsafe(
            Wire.receivablePage({
              object: "list",
              data: list.items,
              hasMore: list.hasMore,
              totalCount: list.totalCount,
              nextVerifiedSince: list.nextVerifiedSince
            })
          )
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

export const layer = Layer.mergeAll(ReceivablesHandlers, VendorsHandlers, DebtorsHandlers, IntegrationsHandlers)
