/**
 * `WebhookDeliveryStore` in memory, over the memory world's `WebhooksState`: deliveries and
 * attempts in the state's webhook tables, an endpoint's deliveries found through their index,
 * fanned out from the memory feed the memory `PairStore` numbers, beside the endpoints the memory
 * `WebhookEndpointStore` keeps in the same state. Held to the port's contract
 * (`test/contracts/WebhookDeliveryStore.contract.ts`) as the PostgreSQL adapter is.
 * Depends on `effect` and core only.
 */
import { DateTime, Effect, Layer, Option } from "effect"
import type { StoredEvent } from "../../receivables/domain/Events.ts"
import { feedOf, ReceivablesState } from "../../receivables/memory/ReceivablesState.ts"
import type { OrgId } from "../../shared/domain/Ids.ts"
import { idKey } from "../../shared/memory/Keys.ts"
import {
  type SubscribableEventType,
  type WebhookDelivery,
  type WebhookEndpointId,
  WebhookOrganizationBusy
} from "../domain/Webhooks.ts"
import {
  type AttemptResult,
  type BehindEndpoint,
  type Claim,
  type ClaimedDelivery,
  type DeliveryFilter,
  type Lease,
  type NewDelivery,
  type WaitingBounds,
  WebhookDeliveryStore
} from "../ports/WebhookDeliveryStore.ts"
import {
  deliveriesOf,
  endpointOf,
  type WebhookDeliveryRow,
  type WebhookEndpointRow,
  WebhooksState
} from "./WebhooksState.ts"

const sameOrg = (a: string, b: string) => idKey(a) === idKey(b)

/** A delivery fan-out made and only the schedule attempted: the one whose lag from the commit means something. */
const scheduleAlone = (row: WebhookDeliveryRow) =>
  row.manualAttempts === 0 &&
  (row.nextTrigger === "scheduled" ||
    (row.nextTrigger === "retry" && !row.attempts.some((attempt) => attempt.trigger === "replay")))

const make = Effect.gen(function* () {
  const state = yield* WebhooksState
  const receivables = yield* ReceivablesState

  const ownDelivery = (org: OrgId, id: string) => {
    const row = state.webhookDeliveries.get(id)
    return row !== undefined && sameOrg(row.orgId, org) ? row : undefined
  }

  const add = (
    org: string,
    endpoint: WebhookEndpointId,
    delivery: NewDelivery,
    at: DateTime.Utc,
    lease: WebhookDeliveryRow["lease"]
  ): WebhookDelivery => {
    const made: WebhookDelivery = {
      id: delivery.id,
      endpointId: endpoint,
      eventId: delivery.eventId,
      eventType: delivery.eventType,
      sequence: delivery.sequence,
      status: lease === null ? "pending" : "sending",
      attempts: 0,
      nextAttemptAt: lease === null ? delivery.dueAt : lease.until,
      lastAttemptAt: null,
      createdAt: at
    }
    state.webhookDeliveries.set(delivery.id, {
      delivery: made,
      orgId: org,
      body: delivery.body,
      lease,
      attempts: [],
      nextTrigger: delivery.trigger,
      manualAttempts: 0,
      resumeAt: null
    })
    const ids = state.endpointDeliveries.get(endpoint)
    if (ids === undefined) state.endpointDeliveries.set(endpoint, new Set([delivery.id]))
    else ids.add(delivery.id)
    return made
  }

  const waitingOf = (org: OrgId) => {
    let waiting = 0
    const replays = new Set<string>()
    for (const row of state.webhookDeliveries.values()) {
      const { status, endpointId, createdAt } = row.delivery
      if (!sameOrg(row.orgId, org) || (status !== "pending" && status !== "sending")) continue
      waiting += 1
      if (row.nextTrigger === "replay") replays.add(`${endpointId} ${DateTime.toEpochMillis(createdAt)}`)
    }
    return { waiting, replays: replays.size }
  }

  const refusal = (org: OrgId, adding: number, bounds: WaitingBounds) => {
    const held = waitingOf(org)
    if (held.replays >= bounds.maxReplays) {
      return new WebhookOrganizationBusy({ bound: "replays", limit: bounds.maxReplays })
    }
    if (held.waiting + adding > bounds.maxWaiting) {
      return new WebhookOrganizationBusy({ bound: "waiting", limit: bounds.maxWaiting })
    }
    return undefined
  }

  const checkBounds = (org: OrgId, adding: number, bounds: WaitingBounds) =>
    Effect.suspend(() => {
      const refused = refusal(org, adding, bounds)
      return refused === undefined ? Effect.void : Effect.fail(refused)
    })

  const enqueue = (
    org: OrgId,
    id: WebhookEndpointId,
    deliveries: ReadonlyArray<NewDelivery>,
    options: { readonly at: DateTime.Utc; readonly bounds?: WaitingBounds | undefined }
  ) =>
    Effect.suspend(() => {
      if (endpointOf(state, org, id) === undefined || deliveries.length === 0) return Effect.succeed([])
      const refused = options.bounds === undefined ? undefined : refusal(org, deliveries.length, options.bounds)
      if (refused !== undefined) return Effect.fail(refused)
      return Effect.succeed(deliveries.map((delivery) => add(org, id, delivery, options.at, null)))
    })

  const enqueueClaimed = (
    org: OrgId,
    id: WebhookEndpointId,
    delivery: NewDelivery,
    options: { readonly at: DateTime.Utc; readonly lease: Lease }
  ) =>
    Effect.sync((): Option.Option<WebhookDelivery> | "busy" => {
      if (endpointOf(state, org, id) === undefined) return Option.none()
      const held = deliveriesOf(state, id).filter((row) => holds(row, options.at)).length
      if (held >= options.lease.perEndpoint) return "busy"
      const { owner, until } = options.lease
      return Option.some(add(org, id, delivery, options.at, { owner, until }))
    })

  const eventsBetween = (
    org: OrgId,
    window: {
      readonly from: DateTime.Utc
      readonly until: DateTime.Utc
      readonly types: ReadonlyArray<SubscribableEventType>
      readonly limit: number
    }
  ) =>
    Effect.sync(() =>
      feedOf(receivables, org)
        .events.filter(
          (event) =>
            window.types.includes(event.type) &&
            !DateTime.isLessThan(event.createdAt, window.from) &&
            DateTime.isLessThan(event.createdAt, window.until)
        )
        .slice(0, window.limit)
        .map(({ committedAt: _, ...event }): StoredEvent => event)
    )

  const deliveries = (org: OrgId, endpoint: WebhookEndpointId, filter: DeliveryFilter) =>
    Effect.sync(() => {
      const after = filter.after
      const rows = deliveriesOf(state, endpoint)
        .filter(
          (row) =>
            sameOrg(row.orgId, org) &&
            (filter.status === undefined || row.delivery.status === filter.status) &&
            (filter.eventType === undefined || row.delivery.eventType === filter.eventType) &&
            (after === undefined || row.delivery.id < after)
        )
        .sort((a, b) => (a.delivery.id < b.delivery.id ? 1 : -1))
      return { items: rows.slice(0, filter.limit).map((row) => row.delivery), hasMore: rows.length > filter.limit }
    })

  const delivery = (org: OrgId, id: string) =>
    Effect.sync(() =>
      Option.map(Option.fromNullishOr(ownDelivery(org, id)), (row) => ({
        delivery: row.delivery,
        attempts: [...row.attempts],
        body: row.body
      }))
    )

  const retry = (org: OrgId, id: string, at: DateTime.Utc) =>
    Effect.sync(() => {
      const row = ownDelivery(org, id)
      if (row === undefined) return Option.none()
      if (row.delivery.status !== "sending") {
        // A manual retry already waiting holds the schedule as it stood before it.
        if (row.nextTrigger !== "manual_retry") {
          row.resumeAt = row.delivery.status === "pending" ? row.delivery.nextAttemptAt : null
        }
        row.delivery = { ...row.delivery, status: "pending", nextAttemptAt: at }
        row.nextTrigger = "manual_retry"
      }
      return Option.some(row.delivery)
    })

  const behind = (limit: number) =>
    Effect.sync(() =>
      [...state.webhookEndpoints.values()]
        .filter((row) => row.endpoint.enabled && row.cursor < feedOf(receivables, row.endpoint.orgId).latestSequence)
        .slice(0, limit)
        .map(
          (row): BehindEndpoint => ({
            orgId: row.endpoint.orgId,
            id: row.endpoint.id,
            cursor: row.cursor,
            eventTypes: row.endpoint.eventTypes
          })
        )
    )

  const advance = (
    org: OrgId,
    id: WebhookEndpointId,
    move: { readonly from: number; readonly to: number; readonly at: DateTime.Utc; readonly maxWaiting: number },
    deliveries: ReadonlyArray<NewDelivery>
  ) =>
    Effect.sync(() => {
      const row = endpointOf(state, org, id)
      if (row === undefined || row.cursor !== move.from) return false
      const room = deliveries.length === 0 ? 0 : Math.max(0, move.maxWaiting - waitingOf(org).waiting)
      const taken = room < deliveries.length ? deliveries.slice(0, room) : deliveries
      const to = taken === deliveries ? move.to : taken.at(-1)?.sequence
      // No room: the cursor stays, the events wait in the feed.
      if (to === undefined || to === null) return false
      for (const delivery of taken) add(org, id, delivery, move.at, null)
      row.cursor = to
      return true
    })

  // A claimed delivery's next attempt is when its lease ends: due again then, should its worker die.
  const isDue = (row: WebhookDeliveryRow, now: DateTime.Utc) =>
    (row.delivery.status === "pending" || row.delivery.status === "sending") &&
    row.delivery.nextAttemptAt !== null &&
    !DateTime.isGreaterThan(row.delivery.nextAttemptAt, now)

  const holds = (row: WebhookDeliveryRow, now: DateTime.Utc) =>
    row.delivery.status === "sending" &&
    row.delivery.nextAttemptAt !== null &&
    DateTime.isGreaterThan(row.delivery.nextAttemptAt, now)

  const millis = (at: DateTime.Utc | null) => (at === null ? 0 : DateTime.toEpochMillis(at))

  // An endpoint's due retries before its first attempts, each kind in the order it came due.
  const claimOrder = (a: WebhookDeliveryRow, b: WebhookDeliveryRow) =>
    (a.delivery.attempts === 0 ? 1 : 0) - (b.delivery.attempts === 0 ? 1 : 0) ||
    millis(a.delivery.nextAttemptAt) - millis(b.delivery.nextAttemptAt) ||
    (a.delivery.sequence ?? 0) - (b.delivery.sequence ?? 0)

  const claim = (request: Claim) =>
    Effect.sync(() => {
      // Endpoints take turns by organization, as the PostgreSQL claim ranks them: each
      // organization's endpoint that came due first, then each one's second.
      const due: Array<{
        readonly row: WebhookEndpointRow
        readonly oldest: number
        readonly deliveries: Array<WebhookDeliveryRow>
      }> = []
      const heldOf = (org: string) => {
        for (const [held, count] of request.held) if (sameOrg(held, org)) return count
        return 0
      }
      for (const row of state.webhookEndpoints.values()) {
        if (!row.endpoint.enabled || heldOf(row.endpoint.orgId) >= request.perOrganization) continue
        const all = deliveriesOf(state, row.endpoint.id)
        const waiting = all.filter((d) => isDue(d, request.now)).sort(claimOrder)
        if (waiting.length === 0) continue
        const held = all.filter((d) => holds(d, request.now)).length
        due.push({
          row,
          oldest: Math.min(...waiting.map((d) => millis(d.delivery.nextAttemptAt))),
          deliveries: waiting.slice(0, Math.max(0, request.perEndpoint - held))
        })
      }
      due.sort((a, b) => a.oldest - b.oldest || (a.row.endpoint.id < b.row.endpoint.id ? -1 : 1))
      const turns = new Map<string, number>()
      const endpoints = due
        .map((entry) => {
          const org = idKey(entry.row.endpoint.orgId)
          const turn = (turns.get(org) ?? 0) + 1
          turns.set(org, turn)
          return { ...entry, org, turn }
        })
        .sort((a, b) => a.turn - b.turn || a.oldest - b.oldest)
        .slice(0, request.limit)
      // Round robin: an organization's endpoints in turn within it, the organizations in turn.
      const orgOrder = new Map<string, number>()
      const candidates = endpoints.flatMap((entry, ord) => {
        if (!orgOrder.has(entry.org)) orgOrder.set(entry.org, ord)
        return entry.deliveries.map((row, place) => ({ row, endpoint: entry.row, org: entry.org, place, ord }))
      })
      candidates.sort((a, b) => orgOrder.get(a.org)! - orgOrder.get(b.org)! || a.place - b.place || a.ord - b.ord)
      const inOrg = new Map<string, number>()
      const picked = candidates
        .map((candidate) => {
          const turn = (inOrg.get(candidate.org) ?? 0) + 1
          inOrg.set(candidate.org, turn)
          return { ...candidate, turn }
        })
        .filter((candidate) => candidate.turn <= request.perOrganization - heldOf(candidate.row.orgId))
        .sort((a, b) => a.turn - b.turn || orgOrder.get(a.org)! - orgOrder.get(b.org)!)
        .slice(0, request.limit)
      return picked.map(({ row, endpoint }): ClaimedDelivery => {
        row.lease = { owner: request.owner, until: request.leaseUntil }
        row.delivery = { ...row.delivery, status: "sending", nextAttemptAt: request.leaseUntil }
        return {
          delivery: row.delivery,
          orgId: row.orgId as OrgId,
          url: endpoint.endpoint.url,
          body: row.body,
          secrets: endpoint.secrets,
          trigger: row.nextTrigger,
          failingSince: endpoint.failingSince,
          scheduledAttempts: row.delivery.attempts - row.manualAttempts,
          resumeAt: row.resumeAt,
          eventCommittedAt:
            row.delivery.sequence === null || !scheduleAlone(row)
              ? null
              : (feedOf(receivables, row.orgId).events.find((event) => event.sequence === row.delivery.sequence)
                  ?.committedAt ?? null)
        }
      })
    })

  const complete = (result: AttemptResult) =>
    Effect.sync(() => {
      const row = state.webhookDeliveries.get(result.attempt.deliveryId)
      if (row === undefined || !sameOrg(row.orgId, result.orgId) || row.lease?.owner !== result.owner) {
        return { disabledEndpoint: false }
      }
      const next = result.next
      row.attempts.push(result.attempt)
      row.lease = null
      if (result.attempt.trigger === "manual_retry") row.manualAttempts += 1
      row.resumeAt = null
      row.nextTrigger = "retry"
      row.delivery = {
        ...row.delivery,
        status: next.status,
        attempts: row.delivery.attempts + 1,
        lastAttemptAt: result.attempt.startedAt,
        nextAttemptAt: next.status === "pending" ? next.dueAt : null
      }
      const endpoint = state.webhookEndpoints.get(row.delivery.endpointId)
      if (endpoint === undefined) return { disabledEndpoint: false }
      const health = result.endpoint
      if (health.health === "healthy") endpoint.failingSince = null
      else endpoint.failingSince ??= result.attempt.startedAt
      if (health.health === "disable" && endpoint.endpoint.enabled) {
        endpoint.endpoint = {
          ...endpoint.endpoint,
          enabled: false,
          disabledReason: health.reason,
          disabledAt: result.attempt.startedAt,
          updatedAt: result.attempt.startedAt
        }
        return { disabledEndpoint: true }
      }
      return { disabledEndpoint: false }
    })

  const prune = (before: { readonly finishedBefore: DateTime.Utc; readonly waitingBefore: DateTime.Utc }) =>
    Effect.sync(() => {
      let removed = 0
      for (const [key, row] of state.webhookDeliveries) {
        const finished = row.delivery.status === "succeeded" || row.delivery.status === "failed"
        const waitingOnDisabled =
          !finished && state.webhookEndpoints.get(row.delivery.endpointId)?.endpoint.enabled === false
        if (
          (finished && DateTime.isLessThan(row.delivery.createdAt, before.finishedBefore)) ||
          (waitingOnDisabled && DateTime.isLessThan(row.delivery.createdAt, before.waitingBefore))
        ) {
          state.webhookDeliveries.delete(key)
          state.endpointDeliveries.get(row.delivery.endpointId)?.delete(key)
          removed += 1
        }
      }
      return removed
    })

  const waiting = (cap: number) =>
    Effect.sync(() => {
      let count = 0
      for (const row of state.webhookDeliveries.values()) {
        if (count >= cap) break
        const parked = state.webhookEndpoints.get(row.delivery.endpointId)?.endpoint.enabled !== true
        if (!parked && (row.delivery.status === "pending" || row.delivery.status === "sending")) count += 1
      }
      return count
    })

  return WebhookDeliveryStore.of({
    checkBounds,
    enqueue,
    enqueueClaimed,
    eventsBetween,
    deliveries,
    delivery,
    retry,
    behind,
    advance,
    claim,
    complete,
    waiting,
    prune
  })
})

export const layerMemory: Layer.Layer<WebhookDeliveryStore, never, WebhooksState | ReceivablesState> = Layer.effect(
  WebhookDeliveryStore,
  make
)
