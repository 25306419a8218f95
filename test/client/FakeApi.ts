/**
 * A `fetch` that answers like the API, over an in-memory model of one organization: the
 * receivables list (keyset paging, `verified_since`, `expand[]=metadata`, the watermark), one
 * receivable, and the events feed (with retention, so `cursor_expired`). Tests change the model
 * between requests and script failures (429, 503, dropped connections) in front of it.
 */
import type { Event, EventReceivable, Receivable, Status } from "../../client/src/mod.ts"

const json = (status: number, body: unknown, headers: Record<string, string> = {}) =>
  new Response(JSON.stringify(body), {
    status,
    headers: { "content-type": "application/json", "request-id": `req_${status}`, ...headers }
  })

export const errorAnswer = (status: number, type: string, code: string, headers: Record<string, string> = {}) =>
  json(status, { error: { type, code, message: `${code} (${status})` } }, headers)

const vendor = { id: "0b6a7e52-1f0e-4d5c-9b1e-6a4e2f1c3d5a", name: "Acme Supplies" }
const debtor = { id: "5f2d8c1a-3b4e-4f6a-8c7d-9e0f1a2b3c4d", name: "Globex" }

type Scripted = (init: RequestInit | undefined) => Response | Promise<Response>

export class FakeApi {
  readonly receivables: Array<EventReceivable> = []
  readonly events: Array<Event> = []
  /** Events up to this sequence were removed by retention. */
  prunedThrough = 0
  readonly requests: Array<URL> = []
  readonly authorizations: Array<string | null> = []
  /** Answers given, in order, before the model answers again. */
  readonly scripted: Array<Scripted> = []
  /** Run before each answer of the model: a sync that commits while the client pages. */
  beforeAnswer: (url: URL) => void = () => {}
  #clock = Date.parse("2026-11-01T00:00:00.000Z")

  #tick() {
    this.#clock += 1000
    return new Date(this.#clock).toISOString()
  }

  #event<E extends Event>(type: E["type"], data: E["data"], at: string) {
    const sequence = this.events.length + 1
    const id = `evt_${sequence.toString(16).padStart(32, "0")}`
    this.events.push({ id, object: "event", type, sequence, created_at: at, data } as Event)
  }

  create(count: number) {
    for (let i = 0; i < count; i++) {
      const at = this.#tick()
      const n = this.receivables.length + 1
      const receivable: EventReceivable = {
        id: `rcv_${n.toString(16).padStart(32, "0")}`,
        object: "receivable",
        vendor_receivable_id: `INV-${n}`,
        vendor,
        debtor,
        amount_cents: n * 100,
        currency: "EUR",
        receivable_date: "2026-10-01",
        due_date: null,
        status: "PENDING",
        portal_status: "Submitted",
        po_number: null,
        detected_at: at,
        updated_at: at,
        metadata: { payment_terms: "NET30" }
      }
      this.receivables.push(receivable)
      this.#event("receivable.created", { receivable }, at)
    }
  }

  update(index: number, status: Status, amount: number) {
    const before = this.receivables[index]!
    const at = this.#tick()
    const after: EventReceivable = { ...before, status, portal_status: status, amount_cents: amount, updated_at: at }
    this.receivables[index] = after
    const changes = { amount_cents: { from: before.amount_cents, to: amount } }
    this.#event("receivable.updated", { receivable: after, changes }, at)
    if (before.status !== status) {
      this.#event(
        "receivable.status_changed",
        {
          receivable_id: after.id,
          vendor,
          debtor,
          previous_status: before.status,
          new_status: status,
          previous_portal_status: before.portal_status,
          new_portal_status: after.portal_status,
          changed_at: at
        },
        at
      )
    }
  }

  readonly fetch: typeof fetch = async (input, init) => {
    const url = new URL(String(input))
    this.requests.push(url)
    this.authorizations.push(new Headers(init?.headers).get("authorization"))
    const scripted = this.scripted.shift()
    if (scripted !== undefined) return scripted(init)
    this.beforeAnswer(url)
    return this.#answer(url)
  }

  #answer(url: URL): Response {
    const query = url.searchParams
    const limit = Number(query.get("limit") ?? 100)
    if (url.pathname === "/v1/receivables") {
      const since = query.get("verified_since") ?? new Date(this.#clock - 86_400_000).toISOString()
      const startingAfter = query.get("starting_after")
      const from = startingAfter === null ? 0 : this.receivables.findIndex((r) => r.id === startingAfter) + 1
      const matching = this.receivables.slice(from).filter((r) => since === "all" || r.updated_at >= since)
      const expanded = query.getAll("expand[]").includes("metadata")
      const data: Array<Receivable> = matching.slice(0, limit).map(({ metadata, ...fields }) => ({
        ...fields,
        estimated_next_update_at: null,
        ...(expanded ? { metadata } : {})
      }))
      const page = { object: "list", data, has_more: matching.length > limit, total_count: matching.length }
      return json(200, { ...page, next_verified_since: new Date(this.#clock).toISOString() })
    }
    const one = /^\/v1\/receivables\/([^/]+)$/.exec(url.pathname)
    if (one !== null) {
      const found = this.receivables.find((r) => r.id === decodeURIComponent(one[1]!))
      if (found === undefined) return errorAnswer(404, "invalid_request_error", "resource_missing")
      return json(200, { ...found, estimated_next_update_at: null, history: [] })
    }
    if (url.pathname === "/v1/events") {
      // Without `after`, the feed starts at the oldest event kept; a cursor behind it has expired.
      const cursor = query.get("after")
      const after = cursor === null ? this.prunedThrough : Number(cursor)
      if (after < this.prunedThrough) return errorAnswer(400, "invalid_request_error", "cursor_expired")
      const matching = this.events.filter((e) => e.sequence > after)
      const data = matching.slice(0, limit)
      return json(200, { object: "list", data, has_more: matching.length > limit, latest_sequence: this.events.length })
    }
    return errorAnswer(404, "invalid_request_error", "resource_missing")
  }
}
