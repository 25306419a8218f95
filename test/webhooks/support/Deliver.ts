/**
 * Delivers what is due to one endpoint, and returns once none of its deliveries is due: each has
 * succeeded or failed, waits for a later attempt, or waits for its disabled endpoint.
 *
 * A test cannot take a drain's return for that. A drain stops when its claims come back empty,
 * and a claim can come back empty with deliveries due: it skips endpoints whose row another
 * transaction holds (`FOR UPDATE SKIP LOCKED`, so that workers never wait on each other), and it
 * finds an endpoint's cap full in a snapshot taken while its attempts were ending. So this asks
 * the endpoint's deliveries, the condition the test needs, and drains again while any is due.
 */
import { DateTime, Effect } from "effect"
import type { OrgId } from "../../../core/shared/domain/Ids.ts"
import type { WebhookDelivery as Delivery } from "../../../core/webhooks/domain/Webhooks.ts"
import { type DeliveryOptions, WebhookDelivery } from "../../../core/webhooks/services/WebhookDelivery.ts"
import { WebhookEndpoints } from "../../../core/webhooks/services/WebhookEndpoints.ts"
import { workerOptions } from "./Services.ts"

// A round ends early only when a claim raced an attempt or a lock: a few are plenty.
const rounds = 20
const pageSize = 100

/** The endpoint's deliveries due now, on the test's clock. */
const dueDeliveries = (org: OrgId, endpoint: string) =>
  Effect.gen(function* () {
    const endpoints = yield* WebhookEndpoints
    if (!(yield* endpoints.get(org, endpoint)).enabled) return []
    const now = yield* DateTime.now
    const due: Array<Delivery> = []
    let after: string | undefined
    for (;;) {
      const page = yield* endpoints.deliveries(org, endpoint, { after, limit: pageSize })
      for (const delivery of page.items) {
        const waiting = delivery.status === "pending" || delivery.status === "sending"
        if (waiting && delivery.nextAttemptAt !== null && !DateTime.isGreaterThan(delivery.nextAttemptAt, now)) {
          due.push(delivery)
        }
      }
      if (!page.hasMore) return due
      after = page.items.at(-1)!.id
    }
  }).pipe(Effect.orDie)

/** Fans out, then drains with `options`, until none of the endpoint's deliveries is due. */
export const deliverDue = (org: OrgId, endpoint: string, options: DeliveryOptions = workerOptions()) =>
  Effect.gen(function* () {
    const worker = yield* WebhookDelivery
    let due: ReadonlyArray<Delivery> = []
    for (let round = 1; round <= rounds; round++) {
      while ((yield* worker.fanOut) > 0) {}
      yield* worker.drain(options)
      due = yield* dueDeliveries(org, endpoint)
      if (due.length === 0) return
    }
    return yield* Effect.die(
      new Error(
        `endpoint ${endpoint} still has ${due.length} deliveries due after ${rounds} rounds: ${due.map((d) => `${d.id} (${d.status})`).join(", ")}`
      )
    )
  })
