/**
 * The query parameters of each endpoint as schemas: types, bounds and defaults of spec section 8
 * and docs/decisions.md. Values arrive as strings; a repeated scalar arrives as an array and is refused.
 * The parameter names are the wire names, case-sensitive as the spec writes them.
 */
import { Effect, Option, Schema, SchemaTransformation } from "effect"
import { Status, statuses } from "../receivables/domain/Status.ts"
import { DebtorId, ReceivableId, VendorId } from "../shared/domain/Ids.ts"
import { parseVerifiedSince } from "../shared/domain/ListQuery.ts"
import * as Pagination from "../shared/domain/Pagination.ts"

/**
 * A whole number in decimal digits within `[minimum, maximum]`, defaulting to `fallback`. The
 * description and default sit on the decoded (integer) side: the OpenAPI document shows each query
 * parameter as the value it decodes to (`core/api/openapi/Parameters.ts`), which a client sends
 * in decimal.
 */
export const IntegerParam = (options: {
  readonly minimum: number
  readonly maximum?: number
  readonly fallback: number
  readonly description: string
}) =>
  Schema.String.check(Schema.isPattern(/^\d{1,16}$/, { expected: "a whole number" })).pipe(
    Schema.decodeTo(
      Schema.Int.annotate({ description: options.description, default: options.fallback }).check(
        options.maximum === undefined
          ? Schema.isGreaterThanOrEqualTo(options.minimum)
          : Schema.isBetween({ minimum: options.minimum, maximum: options.maximum })
      ),
      SchemaTransformation.transform({ decode: Number, encode: String })
    ),
    Schema.withDecodingDefaultKey(Effect.succeed(String(options.fallback)))
  )

export const Limit = IntegerParam({
  minimum: 1,
  maximum: Pagination.limitMaximum,
  fallback: Pagination.limitDefault,
  description: `Items per page: 1 to ${Pagination.limitMaximum}, default ${Pagination.limitDefault}.`
})

export const Page = IntegerParam({
  minimum: 1,
  fallback: Pagination.pageDefault,
  description: `Page number, from 1; default ${Pagination.pageDefault}. A page past the end is empty.`
})

export const HistoryLimit = IntegerParam({
  minimum: 0,
  maximum: Pagination.historyLimitMaximum,
  fallback: Pagination.historyLimitDefault,
  description: `Maximum history entries per receivable, newest first: 0 to ${Pagination.historyLimitMaximum}, default ${Pagination.historyLimitDefault}.`
})

// Annotated before the check: an annotation after it would sit on the filter, which JSON Schema
// cannot express, and so never reach the document.
export const VerifiedSince = Schema.String.annotate({ examples: ["all", "2026-11-20T00:00:00Z", "2026-11-20"] }).check(
  Schema.makeFilter((text: string) => Option.isSome(parseVerifiedSince(text)), {
    expected: "all, an ISO 8601 date-time with Z or an offset, or a date YYYY-MM-DD"
  })
)

export const Expand = Schema.Array(Schema.Literals(["history", "metadata"]))

export const StartingAfter = ReceivableId.annotate({
  expected: "a receivable id: rcv_ and 32 lower-case hexadecimal characters"
})

const optional = <S extends Schema.Top>(schema: S, description: string) =>
  Schema.optionalKey(schema).annotateKey({ description })

export const receivablesListQuery = {
  vendor_id: optional(VendorId, "Only receivables of this vendor (UUID)"),
  debtor_id: optional(DebtorId, "Only receivables of this debtor (UUID)"),
  status: optional(Status, `Only receivables with this status: ${statuses.join(", ")}. All statuses when omitted.`),
  verified_since: optional(
    VerifiedSince,
    "Only receivables updated at or after this time: `all` (no time restriction), an ISO 8601 date-time with `Z` or an offset, or a date (midnight UTC). Default: 24 hours before the request."
  ),
  "expand[]": optional(
    Expand,
    "`history` and/or `metadata`, added to every item; repeat the parameter for both (`expand[]=history&expand[]=metadata`). An expanded page is at most 8 MiB of JSON by default: one that would pass it is cut short, with `has_more` true; continue with `starting_after` set to its last item's id."
  ),
  history_limit: HistoryLimit,
  page: Page,
  limit: Limit,
  starting_after: optional(
    StartingAfter,
    "Keyset paging: the page continues after this receivable (the `id` of the last item you received) in the list's order, with the same filters. Unlike `page`, it never skips or repeats an item that keeps matching while syncs run, and a page deep in the list costs what the first does. The receivable need not match the filters any more. Not together with a `page` other than 1. An id that is not one of your receivables is a 400."
  )
}

export const receivableGetQuery = { history_limit: HistoryLimit }

export const vendorsListQuery = {
  debtor_id: optional(DebtorId, "Only vendors with receivables to this debtor (UUID)")
}

export const debtorsListQuery = {
  vendor_id: optional(VendorId, "Only debtors with receivables from this vendor (UUID)")
}

export const integrationsListQuery = {
  vendor_id: optional(VendorId, "Only this vendor's integrations (UUID)"),
  debtor_id: optional(DebtorId, "Only integrations with this debtor (UUID)")
}
