/**
 * Handlers of the v1 groups: decode has already happened (contract schemas), the principal is
 * known (Authorization); each handler asks the core `Receivables` service within the caller's
 * organization and answers with the contract's JSON, written by `core/api/Wire.ts`.
 */
import { Effect, Layer } from "effect"
import { HttpServerResponse } from "effect/http"
import { HttpApiBuilder } from "effect/http-api"
import { Api } from "../../core/api/Api.ts"
import { ResourceMissing } from "../../core/api/Errors.ts"
import { CurrentPrincipal } from "../../core/api/Security.ts"
import * as Wire from "../../core/api/Wire.ts"
import { Receivables } from "../../core/services/Receivables.ts"

const ReceivablesHandlers = HttpApiBuilder.group(
  Api,
  "receivables",
  Effect.fn(function* (handlers) {
    const receivables = yield* Receivables
    return handlers
      .handle("list", ({ query }) =>
        Effect.gen(function* () {
          const { orgId } = yield* CurrentPrincipal
          const list = yield* receivables.list(orgId, {
            vendorId: query.vendor_id,
            debtorId: query.debtor_id,
            status: query.status,
            verifiedSince: query.verified_since,
            expand: query["expand[]"],
            historyLimit: query.history_limit,
            page: query.page,
            limit: query.limit
          })
          return HttpServerResponse.jsonUnsafe(Wire.page(list.items, Wire.receivable, list.hasMore, list.totalCount))
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

export const layer = Layer.mergeAll(ReceivablesHandlers, VendorsHandlers, DebtorsHandlers)
