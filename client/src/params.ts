/**
 * The query parameters of each endpoint, and how they go on the wire: numbers and dates as text,
 * lists as repeated keys (`expand[]=history&expand[]=metadata`, `type=a&type=b`). Every parameter
 * is optional; the API applies the documented defaults. The webhooks' writes take a JSON body,
 * whose fields are spelt here as on the wire.
 */
import type { EventType, Status, WebhookEventType } from "./wire.ts"

export interface ListReceivablesParams {
  readonly vendor_id?: string
  readonly debtor_id?: string
  readonly status?: Status
  /** `"all"`, a `Date`, or ISO 8601 text. The API's default is the last 24 hours. */
  readonly verified_since?: "all" | Date | string
  /** Sent as `expand[]`: adds `history` and/or `metadata` to every item. */
  readonly expand?: ReadonlyArray<"history" | "metadata">
  /** 0 to 100, default 10. */
  readonly history_limit?: number
  /** From 1, default 1. Prefer `starting_after` (or `iterate`), which never skips nor repeats. */
  readonly page?: number
  /** 1 to 500, default 100. */
  readonly limit?: number
  /** Keyset paging: continue after this receivable id. */
  readonly starting_after?: string
}

/** `iterate` pages by `starting_after` itself; pass `starting_after` only to resume. */
export type IterateReceivablesParams = Omit<ListReceivablesParams, "page">

export interface GetReceivableParams {
  /** 0 to 100, default 10. */
  readonly history_limit?: number
}

export interface ListVendorsParams {
  readonly debtor_id?: string
}

export interface ListDebtorsParams {
  readonly vendor_id?: string
}

export interface ListIntegrationsParams {
  readonly vendor_id?: string
  readonly debtor_id?: string
}

export interface ListEventsParams {
  /** Events with a greater sequence; default 0, the oldest kept. */
  readonly after?: number
  readonly type?: EventType | ReadonlyArray<EventType>
  /** 1 to 500, default 100. */
  readonly limit?: number
}

export type IterateEventsParams = ListEventsParams

type Value = string | number | Date | ReadonlyArray<string> | undefined

/** Wire names that differ from the parameter's name in this client. */
const wireNames: Readonly<Record<string, string>> = { expand: "expand[]" }

/** The query string of `params` (with its leading `?`), or "" when there is none. */
export const queryString = (params: object): string => {
  const search = new URLSearchParams()
  for (const [name, value] of Object.entries(params) as Array<[string, Value]>) {
    if (value === undefined) continue
    const key = wireNames[name] ?? name
    const values = typeof value === "object" && !(value instanceof Date) ? value : [value]
    for (const one of values) search.append(key, one instanceof Date ? one.toISOString() : String(one))
  }
  const text = search.toString()
  return text === "" ? "" : `?${text}`
}

export interface CreateWebhookEndpointParams {
  /** An https URL that receives the events. */
  readonly url: string
  /** The feed's event types to send, at least one. */
  readonly event_types: ReadonlyArray<EventType>
  readonly description?: string | null
}

/** Only the fields given change. */
export interface UpdateWebhookEndpointParams {
  readonly url?: string
  readonly event_types?: ReadonlyArray<EventType>
  readonly description?: string | null
  /** false stops sending (deliveries wait); true resumes. */
  readonly enabled?: boolean
}

export interface ReplayWebhookParams {
  /** Re-send the events created from this instant (ISO 8601) on, within the events' retention. */
  readonly since: string
  /** Up to this instant, excluded; now when omitted. */
  readonly until?: string
}

export interface ListWebhookEndpointsParams {
  readonly starting_after?: string
  readonly limit?: number
}

export interface ListWebhookDeliveriesParams {
  readonly status?: "pending" | "sending" | "succeeded" | "failed"
  readonly event_type?: WebhookEventType
  readonly starting_after?: string
  readonly limit?: number
}
