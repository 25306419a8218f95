/**
 * The client: one typed method per endpoint, grouped by resource as the API is, iterators over
 * every page, `sync`, and the webhooks' management. Needs only a global `fetch` (Node.js 20+, browsers, Deno, Bun, workers)
 * or one passed in.
 */
import { eventPages, items, receivablePages } from "./pages.ts"
import {
  type CreateWebhookEndpointParams,
  type GetReceivableParams,
  type IterateEventsParams,
  type IterateReceivablesParams,
  type ListDebtorsParams,
  type ListEventsParams,
  type ListIntegrationsParams,
  type ListReceivablesParams,
  type ListVendorsParams,
  type ListWebhookDeliveriesParams,
  type ListWebhookEndpointsParams,
  queryString,
  type ReplayWebhookParams,
  type UpdateWebhookEndpointParams
} from "./params.ts"
import { type RetryOptions, retryPolicy } from "./retry.ts"
import { type SyncOptions, type SyncResult, sync } from "./sync.ts"
import { type Clock, type RequestOptions, systemClock, Transport } from "./transport.ts"
import type {
  Debtor,
  Event,
  EventList,
  Integration,
  KeysetList,
  List,
  Receivable,
  ReceivableList,
  Vendor,
  WebhookDelivery,
  WebhookDeliveryWithAttempts,
  WebhookEndpoint,
  WebhookEndpointDeleted,
  WebhookEndpointWithSecret,
  WebhookReplayQueued
} from "./wire.ts"

export interface ClientOptions {
  /** Your API key (`<brand>_live_...`). Sent only as `Authorization: Bearer`, never logged or put in errors. */
  readonly apiKey: string
  /** Where the API is served, such as `https://receivables.example.com` (without `/v1`). */
  readonly baseUrl: string | URL
  /** Default: the global `fetch`. */
  readonly fetch?: typeof fetch
  /** Retries of 429, 502, 503, 504 and of requests that got no answer; `false` for none. */
  readonly retry?: RetryOptions | false
  /** How long one attempt may take, answer body included. Default 60 s. */
  readonly timeoutMs?: number
  /** Time as the client sees it; for tests. */
  readonly clock?: Clock
}

// A key read from an unset environment variable would otherwise go out as `Bearer undefined` and
// come back a puzzling 401; say so where the mistake is. The key itself is never repeated.
const checkedKey = (apiKey: unknown): string => {
  if (typeof apiKey !== "string" || apiKey.trim() === "") {
    throw new TypeError("PartnerReceivables: apiKey is missing or empty (is its environment variable set?)")
  }
  return apiKey
}

// The paths carry `/v1`: a base URL ending in it would ask for `/v1/v1/...` and get 404s.
const checkedBaseUrl = (baseUrl: unknown): string => {
  const text = String(baseUrl ?? "").replace(/\/+$/, "")
  if (!URL.canParse(text)) {
    throw new TypeError(`PartnerReceivables: baseUrl ${JSON.stringify(text)} is not an absolute URL`)
  }
  if (/\/v1$/i.test(text)) {
    throw new TypeError(`PartnerReceivables: baseUrl is where the API is served, without /v1 (${JSON.stringify(text)})`)
  }
  return text
}

const path = (template: string, id: string) => template.replace(":id", encodeURIComponent(id))

export class PartnerReceivables {
  readonly receivables: {
    /** One page: `GET /v1/receivables`. */
    readonly list: (params?: ListReceivablesParams, options?: RequestOptions) => Promise<ReceivableList>
    /** One receivable with its history and metadata: `GET /v1/receivables/:id`. */
    readonly get: (id: string, params?: GetReceivableParams, options?: RequestOptions) => Promise<Receivable>
    /** Every matching receivable, page after page by `starting_after`. */
    readonly iterate: (params?: IterateReceivablesParams, options?: RequestOptions) => AsyncIterable<Receivable>
  }
  readonly vendors: {
    /** Every vendor of your organization (`GET /v1/vendors`), by name then id. */
    readonly list: (params?: ListVendorsParams, options?: RequestOptions) => Promise<List<Vendor>>
  }
  readonly debtors: {
    /** Every debtor you have receivables with (`GET /v1/debtors`), by name then id. */
    readonly list: (params?: ListDebtorsParams, options?: RequestOptions) => Promise<List<Debtor>>
  }
  readonly integrations: {
    /** Every vendor-debtor pair (`GET /v1/integrations`) with its state and last sync. */
    readonly list: (params?: ListIntegrationsParams, options?: RequestOptions) => Promise<List<Integration>>
  }
  readonly events: {
    /** One page of the feed: `GET /v1/events`. */
    readonly list: (params?: ListEventsParams, options?: RequestOptions) => Promise<EventList>
    /** One event: `GET /v1/events/:id`. */
    readonly get: (id: string, options?: RequestOptions) => Promise<Event>
    /** Every event after `after`, until the feed is caught up. */
    readonly iterate: (params?: IterateEventsParams, options?: RequestOptions) => AsyncIterable<Event>
  }
  /**
   * Your webhook endpoints and their deliveries; every method needs a key with the `webhooks`
   * permission (a read-only key gets `PermissionError`). Writes are retried after a 429 only.
   */
  readonly webhooks: {
    /** `POST /v1/webhook_endpoints`: the answer carries the signing `secret`, the only time it is shown. */
    readonly create: (
      params: CreateWebhookEndpointParams,
      options?: RequestOptions
    ) => Promise<WebhookEndpointWithSecret>
    readonly list: (
      params?: ListWebhookEndpointsParams,
      options?: RequestOptions
    ) => Promise<KeysetList<WebhookEndpoint>>
    readonly get: (id: string, options?: RequestOptions) => Promise<WebhookEndpoint>
    readonly update: (
      id: string,
      params: UpdateWebhookEndpointParams,
      options?: RequestOptions
    ) => Promise<WebhookEndpoint>
    readonly delete: (id: string, options?: RequestOptions) => Promise<WebhookEndpointDeleted>
    /** A new secret, shown this once; the previous one keeps signing for 24 hours. */
    readonly rotateSecret: (id: string, options?: RequestOptions) => Promise<WebhookEndpointWithSecret>
    /** Sends `webhook.test` now; answers the delivery with the attempt's outcome. */
    readonly test: (id: string, options?: RequestOptions) => Promise<WebhookDeliveryWithAttempts>
    readonly replay: (id: string, params: ReplayWebhookParams, options?: RequestOptions) => Promise<WebhookReplayQueued>
    /** An endpoint's deliveries, newest first. */
    readonly deliveries: (
      id: string,
      params?: ListWebhookDeliveriesParams,
      options?: RequestOptions
    ) => Promise<KeysetList<WebhookDelivery>>
    readonly delivery: (id: string, options?: RequestOptions) => Promise<WebhookDeliveryWithAttempts>
    readonly retry: (id: string, options?: RequestOptions) => Promise<WebhookDelivery>
  }
  /**
   * Keep a copy of every receivable: a full load, then the changes since, resumable from the
   * checkpoint you store. See the README for its guarantees.
   */
  readonly sync: (options: SyncOptions) => Promise<SyncResult>

  constructor(options: ClientOptions) {
    const transport = new Transport({
      apiKey: checkedKey(options.apiKey),
      baseUrl: checkedBaseUrl(options.baseUrl),
      // Bound: some runtimes refuse `fetch` called with another `this`.
      fetch: options.fetch ?? globalThis.fetch.bind(globalThis),
      retry: retryPolicy(options.retry),
      timeoutMs: options.timeoutMs ?? 60_000,
      clock: options.clock ?? systemClock,
      random: Math.random
    })
    const get = <A>(url: string, params: object, request?: RequestOptions) =>
      transport.get<A>(`${url}${queryString(params)}`, request)

    const listReceivables = (params: ListReceivablesParams = {}, request?: RequestOptions) =>
      get<ReceivableList>("/v1/receivables", params, request)
    const listEvents = (params: ListEventsParams = {}, request?: RequestOptions) =>
      get<EventList>("/v1/events", params, request)
    const listIntegrations = (params: ListIntegrationsParams = {}, request?: RequestOptions) =>
      get<List<Integration>>("/v1/integrations", params, request)

    this.receivables = {
      list: listReceivables,
      get: (id, params = {}, request) => get(path("/v1/receivables/:id", id), params, request),
      iterate: (params = {}, request = {}) => items(receivablePages(listReceivables, params, request))
    }
    this.vendors = { list: (params = {}, request) => get("/v1/vendors", params, request) }
    this.debtors = { list: (params = {}, request) => get("/v1/debtors", params, request) }
    this.integrations = { list: listIntegrations }
    this.events = {
      list: listEvents,
      get: (id, request) => get(path("/v1/events/:id", id), {}, request),
      iterate: (params = {}, request = {}) => items(eventPages(listEvents, params, request))
    }
    const endpoint = (id: string, tail = "") => `${path("/v1/webhook_endpoints/:id", id)}${tail}`
    this.webhooks = {
      create: (params, request) => transport.send("POST", "/v1/webhook_endpoints", params, request),
      list: (params = {}, request) => get("/v1/webhook_endpoints", params, request),
      get: (id, request) => get(endpoint(id), {}, request),
      update: (id, params, request) => transport.send("PATCH", endpoint(id), params, request),
      delete: (id, request) => transport.send("DELETE", endpoint(id), undefined, request),
      rotateSecret: (id, request) => transport.send("POST", endpoint(id, "/rotate_secret"), undefined, request),
      test: (id, request) => transport.send("POST", endpoint(id, "/test"), undefined, request),
      replay: (id, params, request) => transport.send("POST", endpoint(id, "/replay"), params, request),
      deliveries: (id, params = {}, request) => get(endpoint(id, "/deliveries"), params, request),
      delivery: (id, request) => get(path("/v1/webhook_deliveries/:id", id), {}, request),
      retry: (id, request) =>
        transport.send("POST", `${path("/v1/webhook_deliveries/:id", id)}/retry`, undefined, request)
    }
    this.sync = (syncOptions) => sync({ listReceivables, listEvents, listIntegrations }, syncOptions)
  }
}
