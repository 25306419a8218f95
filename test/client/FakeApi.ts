/**
 * A `fetch` that answers like the API, over an in-memory model of one organization with two
 * vendor-debtor pairs: the receivables list (keyset paging, `verified_since`, `expand[]=metadata`,
 * the watermark), one receivable, the integrations with their schedules, and the events feed
 * (with retention, so `cursor_expired`). As in the service, a pair's schedule moves at each of its
 * syncs, also one that changes nothing and so writes no event. Tests change the model between
 * requests and script failures (429, 503, dropped connections) in front of it.
 */
import type { Event, EventReceivable, Integration, Receivable, Status, SyncedReceivable } from "../../client/src/mod.ts"

const json = (status: number, body: unknown, headers: Record<string, string> = {}) =>
  new Response(JSON.stringify(body), {
    status,
    headers: { "content-type": "application/json", "request-id": `req_${status}`, ...headers }
  })

export const errorAnswer = (status: number, type: string, code: string, headers: Record<string, string> = {}) =>
  json(status, { error: { type, code, message: `${code} (${status})` } }, headers)

const vendor = { id: "0b6a7e52-1f0e-4d5c-9b1e-6a4e2f1c3d5a", name: "Acme Supplies" }
const debtors = [
  { id: "5f2d8c1a-3b4e-4f6a-8c7d-9e0f1a2b3c4d", name: "Globex" },
  { id: "8a7b6c5d-4e3f-4a1b-9c8d-7e6f5a4b3c2d", name: "Initech" }
]

/** A pair of the model: its place in `pairs`, and its next sync, null while paused. */
interface Pair {
  readonly debtor: (typeof debtors)[number]
  schedule: string | null
}

type Scripted = (init: RequestInit | undefined) => Response | Promise<Response>

export class FakeApi {
  readonly receivables: Array<EventReceivable> = []
  readonly pairs: ReadonlyArray<Pair> = debtors.map((debtor) => ({ debtor, schedule: null }))
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

  #pairOf(receivable: EventReceivable) {
    return this.pairs.find((pair) => pair.debtor.id === receivable.debtor.id)!
  }

  /** A sync of the pair at `at`: its next one is an hour later. */
  #synced(pair: Pair, at: string) {
    pair.schedule = new Date(Date.parse(at) + 3_600_000).toISOString()
  }

  /** A sync of the pair that finds nothing changed (no event), or its pausing (no schedule). */
  reschedule(pairIndex: number, paused = false) {
    const pair = this.pairs[pairIndex]!
    if (paused) pair.schedule = null
    else this.#synced(pair, this.#tick())
  }

  /** Every receivable as a full load lists it with its metadata. */
  fullLoad(): Array<SyncedReceivable> {
    return this.receivables.map((receivable) => ({
      ...receivable,
      estimated_next_update_at: this.#pairOf(receivable).schedule
    }))
  }

  create(count: number) {
    for (let i = 0; i < count; i++) {
      const at = this.#tick()
      const n = this.receivables.length + 1
      const pair = this.pairs[n % this.pairs.length]!
      const receivable: EventReceivable = {
        id: `rcv_${n.toString(16).padStart(32, "0")}`,
        object: "receivable",
        vendor_receivable_id: `INV-${n}`,
        vendor,
        debtor: pair.debtor,
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
      this.#synced(pair, at)
      this.#event("receivable.created", { receivable }, at)
    }
  }

  update(index: number, status: Status, amount: number) {
    const before = this.receivables[index]!
    const at = this.#tick()
    const after: EventReceivable = { ...before, status, portal_status: status, amount_cents: amount, updated_at: at }
    this.receivables[index] = after
    this.#synced(this.#pairOf(after), at)
    const changes = { amount_cents: { from: before.amount_cents, to: amount } }
    this.#event("receivable.updated", { receivable: after, changes }, at)
    if (before.status !== status) {
      this.#event(
        "receivable.status_changed",
        {
          receivable_id: after.id,
          vendor,
          debtor: after.debtor,
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
        estimated_next_update_at: this.#pairOf({ metadata, ...fields }).schedule,
        ...(expanded ? { metadata } : {})
      }))
      const page = { object: "list", data, has_more: matching.length > limit, total_count: matching.length }
      return json(200, { ...page, next_verified_since: new Date(this.#clock).toISOString() })
    }
    const one = /^\/v1\/receivables\/([^/]+)$/.exec(url.pathname)
    if (one !== null) {
      const found = this.receivables.find((r) => r.id === decodeURIComponent(one[1]!))
      if (found === undefined) return errorAnswer(404, "invalid_request_error", "resource_missing")
      return json(200, { ...found, estimated_next_update_at: this.#pairOf(found).schedule, history: [] })
    }
    if (url.pathname === "/v1/integrations") {
      const data = this.pairs.map(
        (pair, index): Integration => ({
          id: `5a4b3c2d-1e0f-4a9b-8c7d-6e5f4a3b2c1${index}`,
          object: "integration",
          vendor,
          debtor: pair.debtor,
          connector: "simulator",
          state: pair.schedule === null ? "paused" : "active",
          last_sync: null,
          estimated_next_update_at: pair.schedule
        })
      )
      return json(200, { object: "list", data, total_count: data.length })
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
