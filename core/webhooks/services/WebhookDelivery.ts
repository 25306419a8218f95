/**
 * The webhook worker: fans the events feed out to deliveries (a cursor per endpoint) and attempts
 * due deliveries in `concurrency` slots, each attempt signed, posted, and recorded with what
 * follows it (success, the next attempt on the schedule, failure once it is exhausted, and the
 * endpoint disabled when it has failed for 5 days or answered `410 Gone`). A claim commits before
 * the request and the outcome after it, so no transaction is open across an HTTP call; a worker
 * that dies leaves leases that expire, and its deliveries are attempted again (at least once).
 * Attempts are counted by what they left the delivery (`webhook_deliveries_total`) and a success
 * timed from its event's commit (`webhook_delivery_lag_seconds`). The polls (endpoints behind,
 * deliveries due) are untraced, so that an idle worker sends no spans: one that finds nothing is
 * counted (`webhook_idle_polls_total`), and what one finds is traced.
 * Depends on `effect` and core only.
 */
import { Config, Context, DateTime, Duration, Effect, Layer, Metric, Random, Schema, Semaphore } from "effect"
import * as ActionLog from "../../accounts/services/ActionLog.ts"
import { type StoredEvent, toWire } from "../../receivables/domain/Events.ts"
import { type EventCursorAhead, EventFeed, type EventPage } from "../../receivables/ports/EventFeed.ts"
import type { OrgId } from "../../shared/domain/Ids.ts"
import { answerExcerpt } from "../domain/AnswerExcerpt.ts"
import { disableAfter, honourRetryAfter, isGone, isSuccess, nextDelay } from "../domain/WebhookSchedule.ts"
import { attemptId, deliveryHeaders, deliveryId, signedContent } from "../domain/WebhookSigning.ts"
import type { DisabledReason, FirstTrigger, WebhookAttempt, WebhookDeliveryId } from "../domain/Webhooks.ts"
import { WebhookCrypto } from "../ports/WebhookCrypto.ts"
import {
  type AttemptResult,
  type BehindEndpoint,
  type ClaimedDelivery,
  type NewDelivery,
  WebhookDeliveryStore
} from "../ports/WebhookDeliveryStore.ts"
import type { SendOutcome } from "../ports/WebhookSender.ts"
import { WebhookSender } from "../ports/WebhookSender.ts"

export interface DeliveryOptions {
  /** The worker's name in its leases. */
  readonly worker: string
  /** Attempts in flight at once in this worker. */
  readonly concurrency: number
  /** Attempts in flight at once to one endpoint, across every worker. */
  readonly perEndpoint: number
  /** Deliveries of one organization this worker holds at once (claimed, not yet recorded). */
  readonly perOrganization: number
  /** How long a claimed delivery is the worker's: past it, another worker attempts it again. */
  readonly lease: Duration.Duration
  /** The wait between rounds when nothing is due. */
  readonly pollInterval: Duration.Duration
}

/**
 * `WEBHOOK_ENDPOINT_CONCURRENCY`: attempts in flight to one endpoint across every worker (default
 * 4), a test's included.
 */
export const endpointConcurrency = Config.schema(
  Schema.FiniteFromString.check(Schema.isInt(), Schema.isBetween({ minimum: 1, maximum: 64 })),
  "WEBHOOK_ENDPOINT_CONCURRENCY"
).pipe(Config.withDefault(4))

/**
 * An organization's deliveries waiting (queued, not yet delivered or given up): a replay that
 * would pass it is refused, and fan-out to its endpoints pauses at it, the events waiting in the
 * feed, so that one organization's backlog stays a bounded share of the queue.
 */
export const maxWaitingPerOrganization = Config.schema(
  Schema.FiniteFromString.check(Schema.isInt(), Schema.isBetween({ minimum: 100, maximum: 10_000_000 })),
  "WEBHOOK_MAX_WAITING_PER_ORG"
).pipe(Config.withDefault(50_000))

/**
 * `WEBHOOK_ORG_CONCURRENCY`: attempts of one organization's endpoints in flight at once in one
 * worker (default 8 of `WEBHOOK_CONCURRENCY`'s 16), deliveries claimed and not yet attempted
 * included: however many endpoints an organization has and however slowly they answer, the
 * others keep the rest of the worker's slots.
 */
export const organizationConcurrency = Config.schema(
  Schema.FiniteFromString.check(Schema.isInt(), Schema.isBetween({ minimum: 1, maximum: 1024 })),
  "WEBHOOK_ORG_CONCURRENCY"
).pipe(Config.withDefault(8))

/**
 * What the organization's audit says of an endpoint the service disabled: where it was, without
 * its query (a receiver may carry a token there), and why.
 */
export const disabledEndpointSubject = (url: string, reason: Exclude<DisabledReason, "manual">) => {
  const parsed = URL.parse(url)
  const where = parsed === null ? url : `${parsed.origin}${parsed.pathname}`
  return `${where}: ${reason === "gone" ? "it answered 410 Gone" : "it failed for 5 days"}`
}

/** Events fanned out per endpoint per round, and endpoints per round. */
const fanOutBatch = 500
const fanOutEndpoints = 50

const claimsPerSlot = 2

/**
 * How an attempt left its delivery: `delivered`; `retrying` (failed, another attempt scheduled);
 * `failed` (failed, the schedule exhausted); `disabled` (failed, and the endpoint disabled by it,
 * its deliveries waiting until it is enabled again). A closed set: never an endpoint or a URL.
 */
export type DeliveryOutcome = "delivered" | "retrying" | "failed" | "disabled"

const deliveries = Metric.counter("webhook_deliveries_total", {
  description:
    "Webhook delivery attempts made by this process, by what they left the delivery: delivered, retrying, failed or disabled.",
  incremental: true
})

const deliveryLag = Metric.histogram("webhook_delivery_lag_seconds", {
  description:
    "From the commit of an event to its delivery's success, measured at delivery (when the receiver's 2xx arrived); deliveries fan-out made only, not replays or manual retries.",
  boundaries: [0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60, 300, 900, 3600]
})

const idlePolls = Metric.counter("webhook_idle_polls_total", {
  description: "Looks for events to fan out or deliveries due that found none: idle polls, which make no spans.",
  incremental: true
})

const outcomeSeries = new Map<DeliveryOutcome, Metric.Metric<number, unknown>>()

const countOutcome = (outcome: DeliveryOutcome) => {
  let series = outcomeSeries.get(outcome)
  if (series === undefined) {
    series = Metric.withAttributes(deliveries, { outcome })
    outcomeSeries.set(outcome, series)
  }
  return Metric.update(series, 1)
}

/** What an attempt's verdict leaves the delivery, for `webhook_deliveries_total`. */
export const deliveryOutcome = (verdict: Pick<AttemptResult, "next" | "endpoint">): DeliveryOutcome =>
  verdict.next.status === "succeeded"
    ? "delivered"
    : verdict.endpoint.health === "disable"
      ? "disabled"
      : verdict.next.status === "pending"
        ? "retrying"
        : "failed"

/** A delivery of a feed event, due at `at`; its body is the event exactly as `GET /v1/events/{id}` answers it. */
export const deliveryOf = (
  event: StoredEvent,
  id: WebhookDeliveryId,
  at: DateTime.Utc,
  trigger: FirstTrigger
): NewDelivery => {
  const wire = toWire(event)
  return {
    id,
    eventId: wire.id,
    eventType: event.type,
    sequence: event.sequence,
    body: JSON.stringify(wire),
    dueAt: at,
    trigger
  }
}

/** The attempt's record and the delivery's next state, from how the post ended. */
const judge = (
  claimed: ClaimedDelivery,
  sent: SendOutcome,
  startedAt: DateTime.Utc,
  unit: number
): Pick<AttemptResult, "next" | "endpoint"> & {
  readonly outcome: WebhookAttempt["outcome"]
  readonly status: number | null
} => {
  const status = sent.kind === "answered" ? sent.status : null
  if (status !== null && isSuccess(status)) {
    return { outcome: "succeeded", status, next: { status: "succeeded" }, endpoint: { health: "healthy" } }
  }
  const outcome = sent.kind === "answered" ? "http_error" : sent.kind
  const failingSince = claimed.failingSince ?? startedAt
  const endpoint: AttemptResult["endpoint"] =
    status !== null && isGone(status)
      ? { health: "disable", reason: "gone" }
      : Duration.isGreaterThanOrEqualTo(
            Duration.millis(DateTime.toEpochMillis(startedAt) - DateTime.toEpochMillis(failingSince)),
            disableAfter
          )
        ? { health: "disable", reason: "failing" }
        : { health: "failing" }
  // A retry asked for stands beside the schedule: failing, it leaves the schedule's next attempt
  // where it was (and a delivery that had ended, ended), so asking cannot push a retry back.
  if (claimed.trigger === "manual_retry") {
    const resumeAt = claimed.resumeAt
    return {
      outcome,
      status,
      next: resumeAt === null ? { status: "failed" } : { status: "pending", dueAt: resumeAt },
      endpoint
    }
  }
  const delay = nextDelay(claimed.scheduledAttempts + 1, unit)
  if (delay === undefined) return { outcome, status, next: { status: "failed" }, endpoint }
  const wait = honourRetryAfter(delay, sent.kind === "answered" ? sent.retryAfterSeconds : null)
  return { outcome, status, next: { status: "pending", dueAt: DateTime.addDuration(startedAt, wait) }, endpoint }
}

export class WebhookDelivery extends Context.Service<
  WebhookDelivery,
  {
    /** Signs and posts a delivery the worker holds, and records the attempt; answers it. */
    readonly attempt: (claimed: ClaimedDelivery, worker: string) => Effect.Effect<WebhookAttempt>
    /** One round of fan-out; answers how many events the endpoints' cursors moved past (0: none behind). */
    readonly fanOut: Effect.Effect<number>
    /**
     * Claims and attempts due deliveries in `concurrency` slots until the worker's claims come back
     * empty. When it returns, every attempt it started has ended and been recorded, and the last
     * claim it made found nothing it could take; it does not fan out. That is not "nothing is due":
     * a claim skips endpoints whose row another transaction holds locked (`SKIP LOCKED`: another
     * worker's claim), leaves an endpoint at its cap as counted when the claim ran (so attempts
     * ending meanwhile, this drain's own included, can free room it did not see), and a slot
     * that follows another's empty claim within the poll interval stops without claiming. Nor does
     * it see what comes due after its last claim. A caller that needs nothing due asks the
     * deliveries themselves and drains again while any is due.
     */
    readonly drain: (options: DeliveryOptions) => Effect.Effect<void>
    /** Fans out and delivers for as long as it runs. */
    readonly run: (options: DeliveryOptions) => Effect.Effect<never>
  }
>()("core/WebhookDelivery") {
  static readonly layer = Layer.effect(
    WebhookDelivery,
    Effect.gen(function* () {
      const store = yield* WebhookDeliveryStore
      const crypto = yield* WebhookCrypto
      const sender = yield* WebhookSender
      const feed = yield* EventFeed
      const actions = yield* ActionLog.make
      const maxWaiting = yield* maxWaitingPerOrganization

      const attempt = Effect.fn("WebhookDelivery.attempt")(function* (claimed: ClaimedDelivery, worker: string) {
        const startedAt = yield* DateTime.now
        const timestamp = Math.floor(DateTime.toEpochMillis(startedAt) / 1000)
        const content = signedContent(claimed.delivery.eventId, timestamp, claimed.body)
        // While a rotation overlaps, the previous secret signs too: a receiver that has not yet
        // taken the new one still verifies.
        const secrets = [claimed.secrets.current]
        const { previous, previousExpiresAt } = claimed.secrets
        if (previous !== null && previousExpiresAt !== null && DateTime.isGreaterThan(previousExpiresAt, startedAt)) {
          secrets.push(previous)
        }
        const signatures: Array<string> = []
        for (const sealed of secrets) signatures.push(crypto.sign(yield* crypto.open(sealed), content))
        const sent = yield* sender.send({
          url: claimed.url,
          headers: deliveryHeaders(claimed.delivery.eventId, timestamp, signatures),
          body: claimed.body
        })
        const verdict = judge(claimed, sent, startedAt, yield* Random.next)
        const record: WebhookAttempt = {
          id: attemptId(crypto.randomBytes(16), DateTime.toEpochMillis(startedAt)),
          deliveryId: claimed.delivery.id,
          trigger: claimed.trigger,
          startedAt,
          durationMs: sent.durationMs,
          outcome: verdict.outcome,
          responseStatus: verdict.status,
          responseBody: sent.kind === "answered" ? answerExcerpt(sent.body) : null,
          error: sent.kind === "answered" ? (isSuccess(sent.status) ? null : `answered ${sent.status}`) : sent.message
        }
        const { disabledEndpoint } = yield* store.complete({
          owner: worker,
          orgId: claimed.orgId,
          attempt: record,
          next: verdict.next,
          endpoint: verdict.endpoint
        })
        yield* countOutcome(deliveryOutcome(verdict))
        if (verdict.next.status === "succeeded" && claimed.eventCommittedAt !== null) {
          const deliveredAt = DateTime.toEpochMillis(startedAt) + sent.durationMs
          yield* Metric.update(
            deliveryLag,
            Math.max(0, deliveredAt - DateTime.toEpochMillis(claimed.eventCommittedAt)) / 1000
          )
        }
        // Told once, by the attempt that disabled it: the organization's audit shows it with no
        // user. Recorded after the endpoint's commit; should this process die between the two,
        // the endpoint's `disabled_reason` and the log still say it.
        if (disabledEndpoint && verdict.endpoint.health === "disable" && verdict.endpoint.reason !== "manual") {
          yield* actions.byService(
            claimed.orgId,
            "webhook_endpoint_disabled",
            disabledEndpointSubject(claimed.url, verdict.endpoint.reason),
            startedAt
          )
          yield* Effect.logWarning("webhook endpoint disabled").pipe(
            Effect.annotateLogs({
              org: claimed.orgId,
              endpoint: claimed.delivery.endpointId,
              reason: verdict.endpoint.reason
            })
          )
        }
        return record
      })

      // One endpoint's new events, read through the feed (so their bodies are the feed's, and
      // durable before they are sent), made deliveries and the cursor moved in one commit.
      const fanOutEndpoint = (endpoint: BehindEndpoint) =>
        Effect.gen(function* () {
          // Retention removed events the endpoint never got: it goes on from the oldest kept (no
          // position, which nothing can expire). A cursor in a restored database's gap goes on
          // after the gap: this incarnation has nothing there.
          const read = (after: number | undefined): Effect.Effect<EventPage, EventCursorAhead> =>
            feed
              .after(endpoint.orgId, { after, limit: fanOutBatch })
              .pipe(
                Effect.catchTag("EventCursorExpired", (expired) =>
                  read(expired.reason === "restore" ? expired.through : undefined)
                )
              )
          const page = yield* Effect.orDie(read(endpoint.cursor))
          const at = yield* DateTime.now
          const last = page.events.at(-1)
          // No event up to the newest sequence (one snapshot): the cursor steps over a restored
          // database's gap, so that the endpoint is no longer behind and the next events fan out.
          if (last === undefined) {
            if (page.latestSequence <= endpoint.cursor) return 0
            yield* store.advance(
              endpoint.orgId,
              endpoint.id,
              { from: endpoint.cursor, to: page.latestSequence, at, maxWaiting },
              []
            )
            return 0
          }
          const deliveries = page.events
            .filter((event) => endpoint.eventTypes.includes(event.type))
            .map((event) =>
              deliveryOf(event, deliveryId(crypto.randomBytes(16), DateTime.toEpochMillis(at)), at, "scheduled")
            )
          const moved = yield* store.advance(
            endpoint.orgId,
            endpoint.id,
            { from: endpoint.cursor, to: last.sequence, at, maxWaiting },
            deliveries
          )
          // Busy while it moved past events, whether or not the endpoint wanted them.
          return moved ? page.events.length : 0
        })

      // The look for endpoints behind is a poll, untraced so that an idle worker sends no spans;
      // a round that finds some is traced.
      const fanOut = Effect.flatMap(Effect.withTracerEnabled(store.behind(fanOutEndpoints), false), (endpoints) =>
        endpoints.length === 0
          ? Effect.as(Metric.update(idlePolls, 1), 0)
          : Effect.map(Effect.forEach(endpoints, fanOutEndpoint), (made) => made.reduce((a, b) => a + b, 0)).pipe(
              Effect.withSpan("WebhookDelivery.fanOut")
            )
      )

      /** `concurrency` slots, each attempting the next claimed delivery; `slot` decides when to stop. */
      const inSlots = (options: DeliveryOptions, slot: (next: Effect.Effect<boolean>) => Effect.Effect<void>) =>
        Effect.gen(function* () {
          const claiming = yield* Semaphore.make(1)
          const waiting: Array<ClaimedDelivery> = []
          // What this worker holds of each organization, claimed until its attempt is recorded.
          const held = new Map<OrgId, number>()
          const hold = (org: OrgId, by: number) => {
            const count = (held.get(org) ?? 0) + by
            if (count === 0) held.delete(org)
            else held.set(org, count)
          }
          // After a claim that found nothing, the idle slots do not ask again until the poll interval
          // has passed or an attempt of this worker has ended (freeing room under an endpoint's cap):
          // an idle worker makes one claim per interval, not one per slot.
          let quietUntil = Number.NEGATIVE_INFINITY
          const nextDelivery = claiming.withPermits(1)(
            Effect.gen(function* () {
              if (waiting.length === 0) {
                const now = yield* DateTime.now
                if (DateTime.toEpochMillis(now) < quietUntil) return undefined
                // A poll, untraced like the fan-out's: each attempt it finds has its own span.
                const claimed = yield* Effect.withTracerEnabled(
                  store.claim({
                    owner: options.worker,
                    now,
                    leaseUntil: DateTime.addDuration(now, options.lease),
                    limit: options.concurrency * claimsPerSlot,
                    perEndpoint: options.perEndpoint,
                    perOrganization: options.perOrganization,
                    held
                  }),
                  false
                )
                for (const delivery of claimed) hold(delivery.orgId, 1)
                waiting.push(...claimed)
                if (claimed.length === 0) {
                  yield* Metric.update(idlePolls, 1)
                  quietUntil = DateTime.toEpochMillis(now) + Duration.toMillis(options.pollInterval)
                }
              }
              return waiting.shift()
            })
          )
          const next = Effect.gen(function* () {
            const claimed = yield* nextDelivery
            if (claimed === undefined) return false
            yield* attempt(claimed, options.worker).pipe(Effect.ensuring(Effect.sync(() => hold(claimed.orgId, -1))))
            quietUntil = Number.NEGATIVE_INFINITY
            return true
          })
          yield* Effect.forEach(Array.from({ length: options.concurrency }), () => slot(next), {
            concurrency: "unbounded",
            discard: true
          })
        })

      const drain = (options: DeliveryOptions) =>
        inSlots(options, (next) =>
          Effect.gen(function* () {
            while (yield* next) {}
          })
        ).pipe(Effect.withSpan("WebhookDelivery.drain"))

      const pausing = (options: DeliveryOptions, what: string) => (round: Effect.Effect<boolean>) =>
        Effect.forever(
          round.pipe(
            Effect.catchCause((cause) =>
              Effect.logError(`webhook ${what} failed; retrying after a pause`, cause).pipe(Effect.as(false))
            ),
            Effect.flatMap((busy) => (busy ? Effect.void : Effect.sleep(options.pollInterval)))
          )
        )

      const run = (options: DeliveryOptions): Effect.Effect<never> =>
        Effect.all(
          [
            pausing(options, "fan-out")(Effect.map(fanOut, (made) => made > 0)),
            inSlots(options, (next) => pausing(options, "delivery")(next))
          ],
          { concurrency: "unbounded", discard: true }
        ).pipe(Effect.andThen(Effect.never))

      return WebhookDelivery.of({ attempt, fanOut, drain, run })
    })
  )
}
