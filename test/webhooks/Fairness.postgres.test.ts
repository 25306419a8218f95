/**
 * Issue 42's check, against PostgreSQL and over real HTTP to receivers on loopback: while one
 * organization floods (20 endpoints, the most it may have, with a backlog from its feed and
 * replays, all answered by a receiver that takes a second), another organization's first
 * delivery arrives within 2 s of its sync's commit and all its deliveries within twice the time
 * they took in a quiet run beforehand, in the same test.
 *
 * Scaled down to stay fast: 150 deliveries rather than 600, a flood of about 2,500 deliveries
 * rather than 175,800, one worker of 16 slots. The property does not depend on the sizes: what
 * starved the other organization was its place behind every delivery of the flood (claims oldest
 * first overall) and the flood's hold on every slot of the worker (its endpoints' caps allowing
 * 80 slow attempts against 16 slots). Both hold at these sizes, the flood being far longer than
 * the test (it would take minutes at 8 attempts a second), so the 150 either take their share or
 * wait behind it. Before claims took turns by organization, the first of the 150 came after the
 * whole flood; with turns but no share per organization, a delivery of the quiet organization
 * came only as the flood's slow attempts freed a slot and its claimed backlog drained.
 */
import { assert, layer as withLayer } from "@effect/vitest"
import { DateTime, Duration, Effect, Layer } from "effect"
import { WebhookDelivery } from "../../core/webhooks/services/WebhookDelivery.ts"
import { WebhookEndpoints } from "../../core/webhooks/services/WebhookEndpoints.ts"
import { PairStoreHarness } from "../contracts/PairStore.harness.ts"
import { eventually } from "../support/Eventually.ts"
import { ok, receiver } from "./support/Receiver.ts"
import { postgresStorage, senderLayer, services, workerOptions } from "./support/Services.ts"
import { syncEvents } from "./support/Sync.ts"

const quietDeliveries = 150
const floodEndpoints = 20
const floodEvents = 120
const slowAnswer = Duration.seconds(1)

// As the service runs by default: 16 slots, 4 per endpoint, 8 per organization.
const options = workerOptions({
  concurrency: 16,
  perEndpoint: 4,
  perOrganization: 8,
  pollInterval: Duration.millis(100)
})

/** Arrival times, in ms since `since`, of the receiver's requests. */
const arrivals = () => {
  const times: Array<number> = []
  let since = performance.now()
  return {
    times,
    startAt: () => {
      times.length = 0
      since = performance.now()
    },
    answer: ((request, response) => {
      times.push(performance.now() - since)
      ok(request, response)
    }) satisfies typeof ok
  }
}

withLayer(services.pipe(Layer.provideMerge(Layer.merge(postgresStorage, senderLayer()))), {
  excludeTestServices: true,
  timeout: 120_000
})("webhook delivery is fair by organization", (it) => {
  it.effect("another organization's deliveries arrive in time while one organization floods", () =>
    Effect.scoped(
      Effect.gen(function* () {
        const harness = yield* PairStoreHarness
        const endpoints = yield* WebhookEndpoints
        const worker = yield* WebhookDelivery
        const fast = arrivals()
        const quietReceiver = yield* receiver(fast.answer)
        const slowReceiver = yield* receiver((_, response) => {
          setTimeout(() => response.writeHead(204).end(), Duration.toMillis(slowAnswer))
        })
        const quiet = yield* harness.addPair({ dueInSeconds: 3600 })
        yield* endpoints.create(quiet.orgId, { url: quietReceiver.url })
        yield* Effect.forkScoped(worker.run(options))
        const all = (count: number) =>
          eventually(
            `${count} deliveries at the quiet organization's receiver`,
            Effect.sync(() => fast.times.length >= count),
            { attempts: 1200, interval: Duration.millis(25) }
          )

        // Quiet: the organization alone.
        fast.startAt()
        yield* syncEvents(quiet, quietDeliveries)
        yield* all(quietDeliveries)
        const quietTime = fast.times[quietDeliveries - 1]!
        const quietFirst = fast.times[0]!

        // The flood: every endpoint it may have, each with a backlog from its feed, and replays,
        // all to a receiver that takes a second; queued before the quiet organization's next sync.
        const flooding = yield* harness.addPair({ dueInSeconds: 3600 })
        const since = DateTime.subtract(yield* DateTime.now, { minutes: 1 })
        const floodIds = yield* Effect.forEach(Array.from({ length: floodEndpoints }), () =>
          Effect.map(endpoints.create(flooding.orgId, { url: slowReceiver.url }), (made) => made.endpoint.id)
        )
        yield* syncEvents(flooding, floodEvents)
        yield* Effect.forEach(floodIds, (id) =>
          endpoints
            .replay(flooding.orgId, id, { since })
            .pipe(Effect.catchTag("WebhookOrganizationBusy", Effect.succeed))
        )
        yield* eventually(
          "the flood holding the worker",
          Effect.sync(() => slowReceiver.open() >= 4),
          {
            attempts: 400,
            interval: Duration.millis(25)
          }
        )

        fast.startAt()
        yield* syncEvents(quiet, quietDeliveries)
        // Bounded: past twice the quiet time and a margin, the answer is known.
        yield* all(quietDeliveries).pipe(
          Effect.timeout(Duration.millis(Math.max(4 * quietTime, 10_000))),
          Effect.catchTag("TimeoutError", () => Effect.void)
        )
        const first = fast.times[0]
        const last = fast.times[quietDeliveries - 1]
        const summary = `quiet: first ${quietFirst.toFixed(0)} ms, all ${quietTime.toFixed(0)} ms; flooded: first ${first?.toFixed(0)} ms, all ${last?.toFixed(0)} ms (${fast.times.length} of ${quietDeliveries}); the flood's receiver held ${slowReceiver.mostOpen()} at once`
        yield* Effect.log(summary)
        assert.isDefined(first, summary)
        assert.isAtMost(first!, 2000, summary)
        assert.isDefined(last, summary)
        assert.isAtMost(last!, 2 * quietTime, summary)
        assert.strictEqual(new Set(quietReceiver.received.map((r) => r.body)).size, 2 * quietDeliveries)
        // The flood was still going: the quiet organization did not merely wait it out.
        assert.isAbove(slowReceiver.open(), 0)
        assert.isAtMost(slowReceiver.mostOpen(), options.perOrganization)
      })
    )
  )
})
