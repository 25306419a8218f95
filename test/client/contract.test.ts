/**
 * The client package's wire types and query strings held to the contract. The types are checked
 * by `tsc`: each client type must be identical to the encoded side of the schema the HttpApi
 * contract uses, so a field added, renamed or retyped on either side fails the type check. The
 * query strings are checked by decoding what the client sends with the contract's query schemas.
 */
import { assert, describe, it } from "@effect/vitest"
import { Schema } from "effect"
import fc from "fast-check"
import type * as Client from "../../client/src/mod.ts"
import { queryString } from "../../client/src/params.ts"
import type * as Errors from "../../core/api/Errors.ts"
import { type EventList, eventsQuery } from "../../core/api/EventsApi.ts"
import * as Query from "../../core/api/Query.ts"
import type * as Webhooks from "../../core/api/WebhooksApi.ts"
import type { Event } from "../../core/receivables/domain/Events.ts"
import type {
  Debtor,
  Integration,
  ListOf,
  Receivable,
  ReceivableList,
  Vendor
} from "../../core/receivables/domain/Resources.ts"
import { statuses } from "../../core/receivables/domain/Status.ts"

type Equals<A, B> = (<T>() => T extends A ? 1 : 2) extends <T>() => T extends B ? 1 : 2 ? true : false
/** Compiles only for `true`; does nothing when run. */
const holds = <_T extends true>() => {}
type Encoded<S extends Schema.Top> = Schema.Codec.Encoded<S>
type ListEncoded<S extends Schema.Top> = Encoded<ReturnType<typeof ListOf<S>>>
/** The client's parameter names as the wire spells them (`expand` goes as `expand[]`). */
type WireNames<P> = Exclude<keyof P, "expand"> | ("expand" extends keyof P ? "expand[]" : never)

describe("the client's wire types", () => {
  // Checked by tsc: each call compiles only if the two types are identical.
  it("are the encoded types of the contract's schemas", () => {
    holds<Equals<Client.Receivable, Encoded<typeof Receivable>>>()
    holds<Equals<Client.ReceivableList, Encoded<typeof ReceivableList>>>()
    holds<Equals<Client.Vendor, Encoded<typeof Vendor>>>()
    holds<Equals<Client.Debtor, Encoded<typeof Debtor>>>()
    holds<Equals<Client.List<Client.Vendor>, ListEncoded<typeof Vendor>>>()
    holds<Equals<Client.List<Client.Debtor>, ListEncoded<typeof Debtor>>>()
    holds<Equals<Client.List<Client.Integration>, ListEncoded<typeof Integration>>>()
    holds<Equals<Client.Event, Encoded<typeof Event>>>()
    holds<Equals<Client.EventList, Encoded<typeof EventList>>>()
    holds<Equals<Client.WebhookEndpoint, Encoded<typeof Webhooks.WebhookEndpoint>>>()
    holds<Equals<Client.WebhookEndpointWithSecret, Encoded<typeof Webhooks.WebhookEndpointWithSecret>>>()
    holds<Equals<Client.WebhookAttempt, Encoded<typeof Webhooks.WebhookAttempt>>>()
    holds<Equals<Client.WebhookDelivery, Encoded<typeof Webhooks.WebhookDelivery>>>()
    holds<Equals<Client.WebhookDeliveryWithAttempts, Encoded<typeof Webhooks.WebhookDeliveryWithAttempts>>>()
    holds<Equals<Client.CreateWebhookEndpointParams, Encoded<typeof Webhooks.CreateEndpoint>>>()
    holds<Equals<Client.UpdateWebhookEndpointParams, Encoded<typeof Webhooks.UpdateEndpoint>>>()
    holds<Equals<Client.ReplayWebhookParams, Encoded<typeof Webhooks.Replay>>>()
    holds<
      Equals<
        Client.ErrorResponse,
        | Encoded<typeof Errors.InvalidRequest>
        | Encoded<typeof Errors.AuthenticationFailed>
        | Encoded<typeof Errors.PermissionDenied>
        | Encoded<typeof Errors.ResourceMissing>
        | Encoded<typeof Errors.MethodNotAllowed>
        | Encoded<typeof Errors.RequestTimeout>
        | Encoded<typeof Errors.UnsupportedMediaType>
        | Encoded<typeof Errors.RateLimited>
        | Encoded<typeof Errors.ServiceUnavailable>
        | Encoded<typeof Errors.InternalError>
      >
    >()
  })

  it("hand a synced receivable over as a full load lists it, and each pair's schedule as integrations carry it", () => {
    // Mutual assignability: an interface and a mapped type are never "identical" to `Equals`.
    type Same<A, B> = [A] extends [B] ? ([B] extends [A] ? true : false) : false
    type ListItem = Encoded<typeof Receivable>
    holds<
      Same<Client.SyncedReceivable, Omit<ListItem, "history" | "metadata"> & Required<Pick<ListItem, "metadata">>>
    >()
    type Pair = Encoded<typeof Integration>
    holds<
      Same<
        Client.PairSchedule,
        { vendor_id: Pair["vendor"]["id"]; debtor_id: Pair["debtor"]["id"] } & Pick<Pair, "estimated_next_update_at">
      >
    >()
  })

  it("name the parameters the contract defines, no more and no fewer", () => {
    holds<Equals<WireNames<Client.ListReceivablesParams>, keyof typeof Query.receivablesListQuery>>()
    holds<Equals<WireNames<Client.GetReceivableParams>, keyof typeof Query.receivableGetQuery>>()
    holds<Equals<WireNames<Client.ListVendorsParams>, keyof typeof Query.vendorsListQuery>>()
    holds<Equals<WireNames<Client.ListDebtorsParams>, keyof typeof Query.debtorsListQuery>>()
    holds<Equals<WireNames<Client.ListIntegrationsParams>, keyof typeof Query.integrationsListQuery>>()
    holds<Equals<WireNames<Client.ListEventsParams>, keyof typeof eventsQuery>>()
  })
})

/** A query string as the server reads it: a repeated key, or a list-valued one, as an array. */
const decodeQuery = <A>(schema: Schema.Decoder<A>, query: string, lists: ReadonlyArray<string>) => {
  const search = new URLSearchParams(query)
  const record: Record<string, string | Array<string>> = {}
  for (const key of new Set(search.keys())) {
    record[key] = lists.includes(key) ? search.getAll(key) : search.get(key)!
  }
  return Schema.decodeUnknownSync(schema)(record)
}

const uuid = fc.uuid({ version: 4 })
const receivableId = fc.stringMatching(/^rcv_[0-9a-f]{32}$/)
const optional = <A>(arbitrary: fc.Arbitrary<A>) => fc.option(arbitrary, { nil: undefined })
const instant = fc.date({
  min: new Date("2000-01-01T00:00:00Z"),
  max: new Date("2099-12-31T00:00:00Z"),
  noInvalidDate: true
})
/** Optional parameters left out rather than set to undefined. */
const defined = <A>(value: object) => Object.fromEntries(Object.entries(value).filter(([, v]) => v !== undefined)) as A

const listParams: fc.Arbitrary<Client.ListReceivablesParams> = fc
  .record({
    vendor_id: optional(uuid),
    debtor_id: optional(uuid),
    status: optional(fc.constantFrom(...statuses)),
    verified_since: optional(
      fc.oneof(
        fc.constant("all" as const),
        instant,
        instant.map((d) => d.toISOString())
      )
    ),
    expand: optional(fc.subarray(["history", "metadata"] as const, { minLength: 1 })),
    history_limit: optional(fc.integer({ min: 0, max: 100 })),
    page: optional(fc.constant(1)),
    limit: optional(fc.integer({ min: 1, max: 500 })),
    starting_after: optional(receivableId)
  })
  .map(defined<Client.ListReceivablesParams>)

const eventParams: fc.Arbitrary<Client.ListEventsParams> = fc
  .record({
    after: optional(fc.nat()),
    type: optional(
      fc.oneof(
        fc.constantFrom("receivable.created", "receivable.updated", "receivable.status_changed" as const),
        fc.subarray(["receivable.created", "receivable.updated", "receivable.status_changed"] as const, {
          minLength: 1
        })
      )
    ),
    limit: optional(fc.integer({ min: 1, max: 500 }))
  })
  .map(defined<Client.ListEventsParams>)

describe("the client's query strings", () => {
  it("are accepted by the contract's receivables query, with every value as the client meant it", () =>
    fc.assert(
      fc.property(listParams, (params) => {
        const decoded = decodeQuery(Schema.Struct(Query.receivablesListQuery), queryString(params), ["expand[]"])
        assert.strictEqual(decoded.limit, params.limit ?? 100)
        assert.strictEqual(decoded.history_limit, params.history_limit ?? 10)
        assert.deepStrictEqual(decoded["expand[]"], params.expand)
        assert.strictEqual(decoded.starting_after, params.starting_after)
        const since = params.verified_since
        assert.strictEqual(decoded.verified_since, since instanceof Date ? since.toISOString() : since)
      })
    ))

  it("are accepted by the contract's events query", () =>
    fc.assert(
      fc.property(eventParams, (params) => {
        const decoded = decodeQuery(Schema.Struct(eventsQuery), queryString(params), ["type"])
        assert.strictEqual(decoded.after, params.after ?? 0)
        const types =
          params.type === undefined ? undefined : typeof params.type === "string" ? [params.type] : params.type
        assert.deepStrictEqual(decoded.type, types)
      })
    ))

  it("is empty when no parameter is given, so the API's defaults apply", () => {
    assert.strictEqual(queryString({}), "")
    assert.strictEqual(queryString({ limit: undefined }), "")
  })
})
