/**
 * What a receiver sees, run on the memory store and on PostgreSQL: every event of a sync arrives,
 * its body the event exactly as `GET /v1/events/{id}` answers it, signed so that the
 * `standardwebhooks` package verifies it (beyond ASCII, and with both secrets while a rotation
 * overlaps); `webhook.test`; replay; each attempt's trigger; an endpoint disabled by `410 Gone`,
 * told once in the organization's audit, that resumes when enabled; and another organization's ids
 * answered as unknown.
 */
import { assert, layer as withLayer } from "@effect/vitest"
import { DateTime, Duration, Effect, Exit, Fiber, Layer, Redacted } from "effect"
import { Webhook } from "standardwebhooks"
import { DashboardAuditLog } from "../../core/accounts/ports/DashboardAuditLog.ts"
import { toWire } from "../../core/receivables/domain/Events.ts"
import { EventFeed } from "../../core/receivables/ports/EventFeed.ts"
import type { PairStore } from "../../core/receivables/ports/PairStore.ts"
import type { OrgId } from "../../core/shared/domain/Ids.ts"
import type { WebhookDeliveryStore } from "../../core/webhooks/ports/WebhookDeliveryStore.ts"
import type { WebhookEndpointStore } from "../../core/webhooks/ports/WebhookEndpointStore.ts"
import { WebhookDelivery } from "../../core/webhooks/services/WebhookDelivery.ts"
import { WebhookEndpoints } from "../../core/webhooks/services/WebhookEndpoints.ts"
import { PairStoreHarness } from "../contracts/PairStore.harness.ts"
import { eventually } from "../support/Eventually.ts"
import { deliverDue } from "./support/Deliver.ts"
import { verifyWithPython } from "./support/PythonVerifier.ts"
import { type Received, receiver, webhookHeaders } from "./support/Receiver.ts"
import { senderLayer, services, workerOptions } from "./support/Services.ts"
import { nonAscii, syncEvents, tagOf } from "./support/Sync.ts"

// Short, so that a receiver that never answers costs the tests little.
const attemptTimeout = Duration.seconds(1)

const verify = (secret: Redacted.Redacted<string>, received: Received) =>
  new Webhook(Redacted.value(secret)).verify(received.body, webhookHeaders(received.headers))

export const describeDelivery = (
  name: string,
  storage: Layer.Layer<
    PairStore | EventFeed | PairStoreHarness | WebhookEndpointStore | WebhookDeliveryStore | DashboardAuditLog,
    unknown
  >
) =>
  withLayer(services.pipe(Layer.provideMerge(Layer.merge(storage, senderLayer({ timeout: attemptTimeout })))), {
    excludeTestServices: true,
    timeout: 120_000
  })(`webhook delivery: ${name}`, (it) => {
    it.effect("every event of a sync arrives once, as the feed serves it, and standardwebhooks verifies it", () =>
      Effect.scoped(
        Effect.gen(function* () {
          const harness = yield* PairStoreHarness
          const endpoints = yield* WebhookEndpoints
          const feed = yield* EventFeed
          const hooks = yield* receiver()
          const pair = yield* harness.addPair({ dueInSeconds: 3600 })
          yield* syncEvents(pair, 2)
          // Created after the first sync: it receives what follows only.
          const { endpoint, secret } = yield* endpoints.create(pair.orgId, { url: hooks.url })
          const tags = [...(yield* syncEvents(pair, 5)), ...(yield* syncEvents(pair, 3))]
          yield* deliverDue(pair.orgId, endpoint.id)
          assert.deepStrictEqual(
            hooks.received.map((r) => tagOf(r.body)),
            tags
          )
          const events = (yield* feed.after(pair.orgId, { after: 2, limit: 100 })).events
          assert.deepStrictEqual(
            verifyWithPython(Redacted.value(secret), hooks.received),
            hooks.received.map(() => "ok")
          )
          for (const [i, received] of hooks.received.entries()) {
            verify(secret, received)
            assert.strictEqual(received.body, JSON.stringify(toWire(events[i]!)))
            assert.include(received.body, nonAscii)
            assert.strictEqual(received.headers["webhook-id"], toWire(events[i]!).id)
            assert.strictEqual(received.headers["content-type"], "application/json")
            assert.match(String(received.headers["user-agent"]), /PartnerReceivables/)
          }
        })
      )
    )

    it.effect("every event of concurrent syncs arrives at least once while the worker runs", () =>
      Effect.scoped(
        Effect.gen(function* () {
          const harness = yield* PairStoreHarness
          const endpoints = yield* WebhookEndpoints
          const worker = yield* WebhookDelivery
          const hooks = yield* receiver()
          const first = yield* harness.addPair({ dueInSeconds: 3600 })
          const pairs = [first]
          for (let i = 0; i < 3; i++)
            pairs.push(yield* harness.addPair({ dueInSeconds: 3600, sameOrganizationAs: first }))
          yield* endpoints.create(first.orgId, { url: hooks.url })
          const running = yield* Effect.forkScoped(worker.run(workerOptions()))
          const tags = (yield* Effect.all(
            pairs.flatMap((pair) => [syncEvents(pair, 3), syncEvents(pair, 2)]),
            { concurrency: "unbounded" }
          )).flat()
          yield* eventually(
            "every event delivered",
            Effect.sync(() => new Set(hooks.received.map((r) => tagOf(r.body))).size === tags.length)
          )
          yield* Fiber.interrupt(running)
          assert.deepStrictEqual(new Set(hooks.received.map((r) => tagOf(r.body))), new Set(tags))
        })
      )
    )

    it.effect("a receiver that never answers holds at most its cap of connections and delays no other", () =>
      Effect.scoped(
        Effect.gen(function* () {
          const harness = yield* PairStoreHarness
          const endpoints = yield* WebhookEndpoints
          const worker = yield* WebhookDelivery
          const slow = yield* receiver(() => {})
          const healthy = yield* receiver()
          const pair = yield* harness.addPair({ dueInSeconds: 3600 })
          yield* endpoints.create(pair.orgId, { url: slow.url })
          yield* endpoints.create(pair.orgId, { url: healthy.url })
          const options = workerOptions({ concurrency: 8, perEndpoint: 2 })
          // Two workers, as two processes would: the cap is the endpoint's, not a worker's.
          yield* Effect.forkScoped(worker.run({ ...options, worker: "a" }))
          yield* Effect.forkScoped(worker.run({ ...options, worker: "b" }))
          const started = Date.now()
          yield* syncEvents(pair, 10)
          yield* eventually(
            "the healthy receiver has every event",
            Effect.sync(() => healthy.received.length >= 10)
          )
          // Delivered while the slow receiver held its connections: sooner than the attempts it
          // blocked would have taken one after another (10 events, 1 s each, 2 at a time).
          assert.isBelow(Date.now() - started, 4000)
          yield* eventually(
            "the slow receiver has had several attempts",
            Effect.sync(() => slow.received.length >= 4)
          )
          assert.isAtMost(slow.mostOpen(), options.perEndpoint)
        })
      )
    )

    it.effect("while a rotation overlaps, deliveries carry both signatures and either secret verifies", () =>
      Effect.scoped(
        Effect.gen(function* () {
          const harness = yield* PairStoreHarness
          const endpoints = yield* WebhookEndpoints
          const hooks = yield* receiver()
          const pair = yield* harness.addPair({ dueInSeconds: 3600 })
          const created = yield* endpoints.create(pair.orgId, { url: hooks.url })
          const rotated = yield* endpoints.rotateSecret(pair.orgId, created.endpoint.id)
          assert.notStrictEqual(Redacted.value(rotated.secret), Redacted.value(created.secret))
          assert.match(Redacted.value(rotated.secret), /^whsec_[A-Za-z0-9+/]{43}=$/)
          yield* syncEvents(pair, 2)
          yield* deliverDue(pair.orgId, created.endpoint.id)
          assert.lengthOf(hooks.received, 2)
          for (const secret of [created.secret, rotated.secret]) {
            assert.deepStrictEqual(
              verifyWithPython(Redacted.value(secret), hooks.received),
              hooks.received.map(() => "ok")
            )
          }
          const stranger = yield* endpoints.create(pair.orgId, { url: hooks.url })
          assert.notStrictEqual(verifyWithPython(Redacted.value(stranger.secret), hooks.received.slice(0, 1))[0], "ok")
          for (const received of hooks.received) {
            assert.lengthOf(String(received.headers["webhook-signature"]).split(" "), 2)
            verify(created.secret, received)
            verify(rotated.secret, received)
          }
        })
      )
    )

    it.effect("of an answer, a test and a delivery keep a short excerpt, without controls or secrets", () =>
      Effect.scoped(
        Effect.gen(function* () {
          const harness = yield* PairStoreHarness
          const endpoints = yield* WebhookEndpoints
          // What an internal service the operator opened might answer: its own data and secrets.
          const hooks = yield* receiver((_, response) =>
            response
              .writeHead(500)
              .end(`\u001b]0;owned\u0007\u001b[2Jdatabase: password=hunter2hunter2\r\n${"row ".repeat(2000)}`)
          )
          const pair = yield* harness.addPair({ dueInSeconds: 3600 })
          const { endpoint } = yield* endpoints.create(pair.orgId, { url: hooks.url })
          const tested = yield* endpoints.test(pair.orgId, endpoint.id)
          assert.strictEqual(tested.attempt.responseStatus, 500)
          const excerpt = tested.attempt.responseBody!
          assert.match(excerpt, /^\]0;owned\[2Jdatabase: password=\[redacted\] row row /)
          assert.notInclude(excerpt, "hunter2")
          assert.notMatch(excerpt, /\p{Cc}/u)
          assert.isAtMost(Array.from(excerpt).length, 201)
          const { attempts } = yield* endpoints.delivery(pair.orgId, tested.delivery.id)
          assert.strictEqual(attempts[0]!.responseBody, excerpt)
        })
      )
    )

    it.effect("a test is sent through the delivery path and answers its attempt", () =>
      Effect.scoped(
        Effect.gen(function* () {
          const harness = yield* PairStoreHarness
          const endpoints = yield* WebhookEndpoints
          const hooks = yield* receiver((_, response) => response.writeHead(500).end("nope"))
          const pair = yield* harness.addPair({ dueInSeconds: 3600 })
          const { endpoint, secret } = yield* endpoints.create(pair.orgId, { url: hooks.url })
          const failed = yield* endpoints.test(pair.orgId, endpoint.id)
          assert.strictEqual(failed.attempt.outcome, "http_error")
          assert.strictEqual(failed.attempt.responseStatus, 500)
          assert.strictEqual(failed.attempt.responseBody, "nope")
          hooks.answer = (_, response) => response.writeHead(200).end()
          const passed = yield* endpoints.test(pair.orgId, endpoint.id)
          assert.strictEqual(passed.attempt.outcome, "succeeded")
          assert.strictEqual(passed.delivery.status, "succeeded")
          const body = JSON.parse(hooks.received[1]!.body) as { type: string; data: unknown }
          assert.strictEqual(body.type, "webhook.test")
          assert.deepStrictEqual(body.data, { webhook_endpoint_id: endpoint.id })
          verify(secret, hooks.received[1]!)
          const listed = yield* endpoints.deliveries(pair.orgId, endpoint.id, { eventType: "webhook.test", limit: 10 })
          assert.deepStrictEqual(
            listed.items.map((d) => d.status),
            ["succeeded", "pending"]
          )
        })
      )
    )

    it.effect("410 Gone disables the endpoint at once; its deliveries wait and resume when it is enabled", () =>
      Effect.scoped(
        Effect.gen(function* () {
          const harness = yield* PairStoreHarness
          const endpoints = yield* WebhookEndpoints
          const hooks = yield* receiver((_, response) => response.writeHead(410).end())
          const pair = yield* harness.addPair({ dueInSeconds: 3600 })
          // A token in the query is the receiver's secret: the audit names the endpoint without it.
          const { endpoint } = yield* endpoints.create(pair.orgId, { url: `${hooks.url}?token=abc` })
          const tags = yield* syncEvents(pair, 3)
          yield* deliverDue(pair.orgId, endpoint.id)
          const disabled = yield* endpoints.get(pair.orgId, endpoint.id)
          assert.isFalse(disabled.enabled)
          assert.strictEqual(disabled.disabledReason, "gone")
          // The organization is told once, by the service (no user), however many attempts saw 410.
          const told = yield* (yield* DashboardAuditLog).search({ orgId: pair.orgId, limit: 10 })
          assert.deepStrictEqual(
            told.map(({ entry }) => [entry.user, entry.action, entry.subject, entry.clientAddress]),
            [
              [
                { orgId: pair.orgId, userId: null },
                "webhook_endpoint_disabled",
                `${hooks.url}: it answered 410 Gone`,
                null
              ]
            ]
          )
          // The attempts in flight when the first 410 came (at most the cap), and no more: the
          // others wait for the endpoint.
          const attempted = hooks.received.length
          assert.isAtMost(attempted, workerOptions().perEndpoint)
          const more = yield* syncEvents(pair, 1)
          yield* deliverDue(pair.orgId, endpoint.id)
          assert.lengthOf(hooks.received, attempted)
          hooks.answer = (_, response) => response.writeHead(200).end()
          yield* endpoints.update(pair.orgId, endpoint.id, { enabled: true })
          yield* deliverDue(pair.orgId, endpoint.id)
          const delivered = new Set(hooks.received.slice(attempted).map((r) => tagOf(r.body)))
          assert.deepStrictEqual([...delivered].sort(), [...tags, ...more].sort())
        })
      )
    )

    it.effect("each attempt says what made it: the feed, a retry asked for, a replay, a test", () =>
      Effect.scoped(
        Effect.gen(function* () {
          const harness = yield* PairStoreHarness
          const endpoints = yield* WebhookEndpoints
          const hooks = yield* receiver((_, response) => response.writeHead(500).end())
          const pair = yield* harness.addPair({ dueInSeconds: 3600 })
          const since = DateTime.subtract(yield* DateTime.now, { seconds: 1 })
          const { endpoint } = yield* endpoints.create(pair.orgId, { url: hooks.url })
          yield* syncEvents(pair, 1)
          yield* deliverDue(pair.orgId, endpoint.id)
          const [fromFeed] = (yield* endpoints.deliveries(pair.orgId, endpoint.id, { limit: 1 })).items
          yield* endpoints.retry(pair.orgId, fromFeed!.id)
          yield* deliverDue(pair.orgId, endpoint.id)
          const triggers = (id: string) =>
            Effect.map(endpoints.delivery(pair.orgId, id), ({ attempts }) => attempts.map((a) => a.trigger))
          assert.deepStrictEqual(yield* triggers(fromFeed!.id), ["scheduled", "manual_retry"])
          yield* endpoints.replay(pair.orgId, endpoint.id, { since })
          yield* deliverDue(pair.orgId, endpoint.id)
          const [replayed] = (yield* endpoints.deliveries(pair.orgId, endpoint.id, { limit: 1 })).items
          assert.notStrictEqual(replayed!.id, fromFeed!.id)
          assert.deepStrictEqual(yield* triggers(replayed!.id), ["replay"])
          const tested = yield* endpoints.test(pair.orgId, endpoint.id)
          assert.strictEqual(tested.attempt.trigger, "test")
          assert.deepStrictEqual(yield* triggers(tested.delivery.id), ["test"])
        })
      )
    )

    it.effect("replay re-sends a window of the feed in sequence order", () =>
      Effect.scoped(
        Effect.gen(function* () {
          const harness = yield* PairStoreHarness
          const endpoints = yield* WebhookEndpoints
          const hooks = yield* receiver()
          const pair = yield* harness.addPair({ dueInSeconds: 3600 })
          const since = DateTime.subtract(yield* DateTime.now, { seconds: 1 })
          const { endpoint } = yield* endpoints.create(pair.orgId, { url: hooks.url })
          const tags = yield* syncEvents(pair, 4)
          // One attempt at a time, so that arrival order is claim order: with several in flight,
          // first attempts start in sequence order but may arrive out of it (docs/consumers.md).
          const oneAtATime = workerOptions({ concurrency: 1, perEndpoint: 1 })
          yield* deliverDue(pair.orgId, endpoint.id, oneAtATime)
          const replayed = yield* endpoints.replay(pair.orgId, endpoint.id, { since })
          assert.strictEqual(replayed.queued, 4)
          yield* deliverDue(pair.orgId, endpoint.id, oneAtATime)
          assert.deepStrictEqual(
            hooks.received.map((r) => tagOf(r.body)),
            [...tags, ...tags]
          )
          const tooOld = yield* Effect.exit(
            endpoints.replay(pair.orgId, endpoint.id, { since: DateTime.subtract(since, { days: 31 }) })
          )
          assert.isTrue(Exit.isFailure(tooOld))
        })
      )
    )

    it.effect("another organization's endpoint and deliveries are not found, and never changed", () =>
      Effect.scoped(
        Effect.gen(function* () {
          const harness = yield* PairStoreHarness
          const endpoints = yield* WebhookEndpoints
          const hooks = yield* receiver()
          const pair = yield* harness.addPair({ dueInSeconds: 3600 })
          const other = (yield* harness.addPair({ dueInSeconds: 3600 })).orgId as OrgId
          const { endpoint } = yield* endpoints.create(pair.orgId, { url: hooks.url })
          yield* endpoints.test(pair.orgId, endpoint.id)
          const [delivery] = (yield* endpoints.deliveries(pair.orgId, endpoint.id, { limit: 1 })).items
          const notFound = (effect: Effect.Effect<unknown, { readonly _tag: string }>) =>
            Effect.map(Effect.flip(effect), (error) => error._tag)
          assert.strictEqual(yield* notFound(endpoints.get(other, endpoint.id)), "WebhookEndpointNotFound")
          assert.strictEqual(
            yield* notFound(endpoints.update(other, endpoint.id, { enabled: false })),
            "WebhookEndpointNotFound"
          )
          assert.strictEqual(yield* notFound(endpoints.rotateSecret(other, endpoint.id)), "WebhookEndpointNotFound")
          assert.strictEqual(yield* notFound(endpoints.test(other, endpoint.id)), "WebhookEndpointNotFound")
          assert.strictEqual(
            yield* notFound(endpoints.replay(other, endpoint.id, { since: yield* DateTime.now })),
            "WebhookEndpointNotFound"
          )
          assert.strictEqual(
            yield* notFound(endpoints.deliveries(other, endpoint.id, { limit: 10 })),
            "WebhookEndpointNotFound"
          )
          assert.strictEqual(yield* notFound(endpoints.delivery(other, delivery!.id)), "WebhookDeliveryNotFound")
          assert.strictEqual(yield* notFound(endpoints.retry(other, delivery!.id)), "WebhookDeliveryNotFound")
          assert.strictEqual(yield* notFound(endpoints.remove(other, endpoint.id)), "WebhookEndpointNotFound")
          assert.lengthOf((yield* endpoints.list(other, { limit: 10 })).items, 0)
          assert.isTrue((yield* endpoints.get(pair.orgId, endpoint.id)).enabled)
          assert.lengthOf(hooks.received, 1)
        })
      )
    )
  })
