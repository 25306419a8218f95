/**
 * The contract of the `WebhookDeliveryStore` port, run on the memory twin and on PostgreSQL beside
 * `WebhookEndpointStore` (deliveries belong to endpoints): claims hold each endpoint's cap however
 * many workers claim at once, an expired lease is claimed again and the late worker's outcome is
 * then ignored, claims take turns by organization and by endpoint within one, first attempts go in
 * sequence order, a fan-out from a stale cursor changes nothing,
 * due retries go before first attempts, a manual retry carries the schedule it stands beside,
 * pages partition, another organization sees none of it, a test's claim counts against the cap,
 * each attempt keeps what made it, an organization's share of a worker's claims, its deliveries
 * waiting and replays in flight hold however many replays come at once, fan-out pauses at the
 * bound and loses nothing, one attempt only is answered as the one that disabled an
 * endpoint, and retention removes finished deliveries and, past the events' bound, those waiting
 * for a disabled endpoint. A claimed delivery carries when its event was committed to the feed
 * (the delivery's lag is timed from it), none for a delivery of no event in the feed.
 */
import { assert, layer as withLayer } from "@effect/vitest"
import { DateTime, Effect, type Layer, Option } from "effect"
import {
  type ClaimedDelivery,
  type WaitingBounds,
  WebhookDeliveryStore
} from "../../core/webhooks/ports/WebhookDeliveryStore.ts"
import { WebhookEndpointStore } from "../../core/webhooks/ports/WebhookEndpointStore.ts"
import { syncEvents } from "../webhooks/support/Sync.ts"
import { PairStoreHarness } from "./PairStore.harness.ts"
import { claimAt, deliveries, newEndpoint, newOrg, outcome, type WebhookStores } from "./Webhooks.setup.ts"

export const describeWebhookDeliveryStoreContract = (name: string, layer: Layer.Layer<WebhookStores, unknown>) =>
  withLayer(layer, { excludeTestServices: true, timeout: 120_000 })(`WebhookDeliveryStore contract: ${name}`, (it) => {
    it.effect("an endpoint's cap holds however many workers claim at once, and frees as attempts end", () =>
      Effect.gen(function* () {
        const store = yield* WebhookDeliveryStore
        const org = yield* newOrg
        const now = yield* DateTime.now
        const endpoint = yield* newEndpoint(org, now)
        yield* store.enqueue(org, endpoint.id, deliveries(12, now), { at: now })
        const claims = yield* Effect.all(
          Array.from({ length: 6 }, (_, i) =>
            Effect.map(claimAt(`w${i}`, now, 3), (claimed) =>
              claimed.filter((c) => c.delivery.endpointId === endpoint.id).map((c) => [`w${i}`, c.delivery.id] as const)
            )
          ),
          { concurrency: "unbounded" }
        )
        const claimed = claims.flat()
        assert.lengthOf(claimed, 3)
        const [owner, first] = claimed[0]!
        yield* store.complete(outcome(owner, org, first, now))
        const mine = (more: ReadonlyArray<{ readonly delivery: { readonly endpointId: string } }>) =>
          more.filter((c) => c.delivery.endpointId === endpoint.id)
        assert.lengthOf(mine(yield* claimAt("w9", now, 3)), 1)
        assert.lengthOf(mine(yield* claimAt("w9", now, 3)), 0)
      })
    )

    it.effect("a claimed delivery carries when its event was committed; one of no event in the feed, none", () =>
      Effect.gen(function* () {
        const store = yield* WebhookDeliveryStore
        const pair = yield* (yield* PairStoreHarness).addPair({ dueInSeconds: 3600 })
        const before = DateTime.toEpochMillis(yield* DateTime.now)
        yield* syncEvents(pair, 1)
        const now = yield* DateTime.now
        const endpoint = yield* newEndpoint(pair.orgId, now)
        const [ofEvent, ofNone] = deliveries(2, now, 1)
        yield* store.enqueue(
          pair.orgId,
          endpoint.id,
          [ofEvent!, { ...ofNone!, sequence: null, eventType: "webhook.test" }],
          { at: now }
        )
        const claimed = (yield* claimAt("w", now, 10)).filter((c) => c.delivery.endpointId === endpoint.id)
        const committed = claimed.find((c) => c.delivery.sequence === 1)?.eventCommittedAt ?? null
        assert.isNotNull(committed)
        // The database's clock and this one's are the machine's: a millisecond's rounding apart at most.
        assert.isAtLeast(DateTime.toEpochMillis(committed!), before - 1)
        assert.isAtMost(DateTime.toEpochMillis(committed!), DateTime.toEpochMillis(now) + 1)
        assert.isNull(claimed.find((c) => c.delivery.sequence === null)?.eventCommittedAt)
      })
    )

    it.effect("a replayed or manually retried delivery carries no commit time: its lag would time the asking", () =>
      Effect.gen(function* () {
        const store = yield* WebhookDeliveryStore
        const pair = yield* (yield* PairStoreHarness).addPair({ dueInSeconds: 3600 })
        yield* syncEvents(pair, 1)
        const now = yield* DateTime.now
        const endpoint = yield* newEndpoint(pair.orgId, now)
        const [replayed] = yield* store.enqueue(
          pair.orgId,
          endpoint.id,
          deliveries(1, now, 1).map((d) => ({ ...d, trigger: "replay" as const })),
          { at: now }
        )
        const first = (yield* claimAt("w", now, 10)).find((c) => c.delivery.id === replayed!.id)
        assert.strictEqual(first?.trigger, "replay")
        assert.isNull(first?.eventCommittedAt)
        // Its retry, by the schedule, was still asked for by the replay.
        const later = DateTime.add(now, { seconds: 10 })
        yield* store.complete({
          ...outcome("w", pair.orgId, replayed!.id, now, "replay"),
          next: { status: "pending", dueAt: DateTime.add(now, { seconds: 5 }) }
        })
        const retried = (yield* claimAt("w", later, 10)).find((c) => c.delivery.id === replayed!.id)
        assert.strictEqual(retried?.trigger, "retry")
        assert.isNull(retried?.eventCommittedAt)
      })
    )

    it.effect("deliveries waiting for a disabled endpoint are parked, not counted as waiting", () =>
      Effect.gen(function* () {
        const store = yield* WebhookDeliveryStore
        const org = yield* newOrg
        const now = yield* DateTime.now
        const on = yield* newEndpoint(org, now)
        const off = yield* newEndpoint(org, now)
        const before = yield* store.waiting(1_000_000)
        yield* store.enqueue(org, on.id, deliveries(2, now), { at: now })
        yield* store.enqueue(org, off.id, deliveries(3, now), { at: now })
        assert.strictEqual((yield* store.waiting(1_000_000)) - before, 5)
        yield* (yield* WebhookEndpointStore).update(
          org,
          off.id,
          { enabled: { enabled: false, reason: "failing" } },
          now
        )
        assert.strictEqual((yield* store.waiting(1_000_000)) - before, 2)
      })
    )

    it.effect("first attempts go in sequence order", () =>
      Effect.gen(function* () {
        const store = yield* WebhookDeliveryStore
        const org = yield* newOrg
        const now = yield* DateTime.now
        const endpoint = yield* newEndpoint(org, now)
        yield* store.enqueue(org, endpoint.id, [...deliveries(5, now, 1)].reverse(), { at: now })
        const claimed = (yield* claimAt("w", now, 10)).filter((c) => c.delivery.endpointId === endpoint.id)
        assert.deepStrictEqual(
          claimed.map((c) => c.delivery.sequence),
          [1, 2, 3, 4, 5]
        )
      })
    )

    it.effect("an endpoint's due retries are claimed before its first attempts, whenever those came due", () =>
      Effect.gen(function* () {
        const store = yield* WebhookDeliveryStore
        const org = yield* newOrg
        const now = yield* DateTime.now
        const endpoint = yield* newEndpoint(org, now)
        const [first] = yield* store.enqueue(org, endpoint.id, deliveries(1, now, 1), { at: now })
        const [held] = (yield* claimAt("w", now, 1)).filter((c) => c.delivery.endpointId === endpoint.id)
        assert.strictEqual(held?.delivery.id, first!.id)
        yield* store.complete({
          ...outcome("w", org, first!.id, now),
          next: { status: "pending", dueAt: DateTime.add(now, { seconds: 5 }) }
        })
        // A backlog due before the retry is.
        yield* store.enqueue(org, endpoint.id, deliveries(5, now, 2), { at: now })
        const claimed = (yield* claimAt("w", DateTime.add(now, { seconds: 10 }), 3)).filter(
          (c) => c.delivery.endpointId === endpoint.id
        )
        assert.deepStrictEqual(
          claimed.map((c) => [c.delivery.sequence, c.trigger]),
          [
            [1, "retry"],
            [2, "scheduled"],
            [3, "scheduled"]
          ]
        )
      })
    )

    it.effect("a manual retry is claimed with the schedule's next attempt as it stood, and counted apart from it", () =>
      Effect.gen(function* () {
        const store = yield* WebhookDeliveryStore
        const org = yield* newOrg
        const now = yield* DateTime.now
        const endpoint = yield* newEndpoint(org, now)
        const [made] = yield* store.enqueue(org, endpoint.id, deliveries(1, now), { at: now })
        const id = made!.id
        const mine = (claimed: ReadonlyArray<ClaimedDelivery>) => claimed.filter((c) => c.delivery.id === id)
        yield* claimAt("w", now, 1)
        const scheduled = DateTime.add(now, { minutes: 5 })
        yield* store.complete({ ...outcome("w", org, id, now), next: { status: "pending", dueAt: scheduled } })
        // Asked twice before it is made: the second keeps what the first held.
        yield* store.retry(org, id, DateTime.add(now, { minutes: 1 }))
        const asked = DateTime.add(now, { minutes: 2 })
        yield* store.retry(org, id, asked)
        const [manual] = mine(yield* claimAt("w", asked, 1))
        assert.strictEqual(manual?.trigger, "manual_retry")
        assert.deepStrictEqual(manual?.resumeAt, scheduled)
        assert.strictEqual(manual?.scheduledAttempts, 1)
        yield* store.complete({
          ...outcome("w", org, id, asked, "manual_retry"),
          next: { status: "pending", dueAt: scheduled }
        })
        assert.lengthOf(mine(yield* claimAt("w", DateTime.subtract(scheduled, { milliseconds: 1 }), 1)), 0)
        const [resumed] = mine(yield* claimAt("w", scheduled, 1))
        assert.strictEqual(resumed?.trigger, "retry")
        assert.strictEqual(resumed?.delivery.attempts, 2)
        assert.strictEqual(resumed?.scheduledAttempts, 1)
        assert.isNull(resumed?.resumeAt)
        // Retried once it has ended, there is no schedule to resume.
        yield* store.complete(outcome("w", org, id, scheduled))
        yield* store.retry(org, id, scheduled)
        const [again] = mine(yield* claimAt("w", scheduled, 1))
        assert.strictEqual(again?.trigger, "manual_retry")
        assert.isNull(again?.resumeAt)
      })
    )

    it.effect("an expired lease is claimed again, and the late worker's outcome is ignored", () =>
      Effect.gen(function* () {
        const store = yield* WebhookDeliveryStore
        const org = yield* newOrg
        const now = yield* DateTime.now
        const endpoint = yield* newEndpoint(org, now)
        yield* store.enqueue(org, endpoint.id, deliveries(1, now), { at: now })
        const [held] = (yield* claimAt("dies", now, 1)).filter((c) => c.delivery.endpointId === endpoint.id)
        assert.isDefined(held)
        assert.lengthOf(
          (yield* claimAt("other", now, 1)).filter((c) => c.delivery.endpointId === endpoint.id),
          0
        )
        const later = DateTime.add(now, { minutes: 2 })
        const [again] = (yield* claimAt("other", later, 1)).filter((c) => c.delivery.endpointId === endpoint.id)
        assert.strictEqual(again?.delivery.id, held!.delivery.id)
        yield* store.complete(outcome("dies", org, held!.delivery.id, later))
        const before = yield* store.delivery(org, held!.delivery.id)
        assert.strictEqual(Option.getOrThrow(before).delivery.status, "sending")
        assert.lengthOf(Option.getOrThrow(before).attempts, 0)
        yield* store.complete(outcome("other", org, held!.delivery.id, later))
        const after = Option.getOrThrow(yield* store.delivery(org, held!.delivery.id))
        assert.strictEqual(after.delivery.status, "succeeded")
        assert.strictEqual(after.delivery.attempts, 1)
        assert.lengthOf(after.attempts, 1)
      })
    )

    it.effect("claims take turns by organization, and by endpoint within one, whatever came due first", () =>
      Effect.gen(function* () {
        const store = yield* WebhookDeliveryStore
        const now = yield* DateTime.now
        // What earlier laws left due is leased away, so that the two organizations below are all that is due.
        yield* claimAt("earlier", now, 100_000, 100_000)
        const flooding = yield* newOrg
        const quiet = yield* newOrg
        const before = DateTime.subtract(now, { minutes: 1 })
        const floodingEndpoints = new Set<string>()
        for (let i = 0; i < 20; i++) {
          const endpoint = yield* newEndpoint(flooding, before)
          floodingEndpoints.add(endpoint.id)
          yield* store.enqueue(flooding, endpoint.id, deliveries(50, before), { at: before })
        }
        const quietEndpoints = new Set<string>()
        for (const count of [3, 2]) {
          const endpoint = yield* newEndpoint(quiet, now)
          quietEndpoints.add(endpoint.id)
          yield* store.enqueue(quiet, endpoint.id, deliveries(count, now), { at: now })
        }
        const claimed = yield* claimAt("w", now, 5, 6)
        const of = (endpoints: ReadonlySet<string>) => claimed.filter((c) => endpoints.has(c.delivery.endpointId))
        assert.lengthOf(claimed, 6)
        assert.isTrue(claimed.slice(0, 2).some((c) => quietEndpoints.has(c.delivery.endpointId)))
        assert.lengthOf(of(quietEndpoints), 3)
        assert.strictEqual(new Set(of(quietEndpoints).map((c) => c.delivery.endpointId)).size, 2)
        assert.strictEqual(new Set(of(floodingEndpoints).map((c) => c.delivery.endpointId)).size, 3)
      })
    )

    it.effect("an organization takes no more of a worker's claims than its share, what the worker holds counted", () =>
      Effect.gen(function* () {
        const store = yield* WebhookDeliveryStore
        const now = yield* DateTime.now
        yield* claimAt("earlier", now, 100_000, 100_000)
        const flooding = yield* newOrg
        const quiet = yield* newOrg
        for (let i = 0; i < 5; i++) {
          const endpoint = yield* newEndpoint(flooding, now)
          yield* store.enqueue(flooding, endpoint.id, deliveries(10, now), { at: now })
        }
        const endpoint = yield* newEndpoint(quiet, now)
        yield* store.enqueue(quiet, endpoint.id, deliveries(3, now), { at: now })
        const claim = (held: ReadonlyMap<typeof flooding, number>) =>
          store.claim({
            owner: "w",
            now,
            leaseUntil: DateTime.add(now, { minutes: 1 }),
            limit: 50,
            perEndpoint: 4,
            perOrganization: 4,
            held
          })
        const of = (claimed: ReadonlyArray<ClaimedDelivery>, org: typeof flooding) =>
          claimed.filter((c) => c.orgId === org).length
        const first = yield* claim(new Map([[flooding, 1]]))
        assert.strictEqual(of(first, flooding), 3)
        assert.strictEqual(of(first, quiet), 3)
        // At its share, an organization gets nothing more, and another's deliveries still come.
        yield* store.enqueue(quiet, endpoint.id, deliveries(1, now, 10), { at: now })
        const second = yield* claim(new Map([[flooding, 4]]))
        assert.strictEqual(of(second, flooding), 0)
        assert.strictEqual(of(second, quiet), 1)
      })
    )

    it.effect("replays at once cannot pass the organization's bounds on deliveries waiting and replays in flight", () =>
      Effect.gen(function* () {
        const store = yield* WebhookDeliveryStore
        const now = yield* DateTime.now
        const replayed = (count: number) => deliveries(count, now).map((d) => ({ ...d, trigger: "replay" as const }))
        const attempt = (
          org: typeof waitingOrg,
          id: (typeof endpoints)[number],
          count: number,
          bounds: WaitingBounds
        ) =>
          store.enqueue(org, id, replayed(count), { at: now, bounds }).pipe(
            Effect.map(() => "queued"),
            Effect.catchTag("WebhookOrganizationBusy", (refusal) => Effect.succeed(refusal.bound))
          )
        const waitingOrg = yield* newOrg
        const endpoints = [(yield* newEndpoint(waitingOrg, now)).id]
        const waiting = yield* Effect.all(
          Array.from({ length: 6 }, () => attempt(waitingOrg, endpoints[0]!, 3, { maxWaiting: 10, maxReplays: 100 })),
          { concurrency: "unbounded" }
        )
        assert.deepStrictEqual(waiting.toSorted(), ["queued", "queued", "queued", "waiting", "waiting", "waiting"])
        assert.lengthOf((yield* store.deliveries(waitingOrg, endpoints[0]!, { limit: 100 })).items, 9)

        const replaysOrg = yield* newOrg
        const own = yield* Effect.forEach(Array.from({ length: 5 }), () => newEndpoint(replaysOrg, now))
        const replays = yield* Effect.all(
          own.map((endpoint) => attempt(replaysOrg, endpoint.id, 2, { maxWaiting: 1_000, maxReplays: 2 })),
          { concurrency: "unbounded" }
        )
        assert.deepStrictEqual(replays.toSorted(), ["queued", "queued", "replays", "replays", "replays"])
        // A replay stops being in flight once its deliveries have had their first attempt.
        const claimed = (yield* claimAt("w", now, 100, 100_000)).filter((c) => c.orgId === replaysOrg)
        assert.lengthOf(claimed, 4)
        for (const c of claimed) yield* store.complete(outcome("w", replaysOrg, c.delivery.id, now))
        assert.strictEqual(yield* attempt(replaysOrg, own[0]!.id, 2, { maxWaiting: 1_000, maxReplays: 2 }), "queued")
      })
    )

    it.effect("fan-out at the organization's bound on deliveries waiting pauses, and loses no event", () =>
      Effect.gen(function* () {
        const store = yield* WebhookDeliveryStore
        const org = yield* newOrg
        const now = yield* DateTime.now
        const endpoint = yield* newEndpoint(org, now)
        const move = (from: number, to: number, maxWaiting: number, first: number) =>
          store.advance(org, endpoint.id, { from, to, at: now, maxWaiting }, deliveries(to - from, now, first))
        const sequences = Effect.map(store.deliveries(org, endpoint.id, { limit: 100 }), (page) =>
          page.items.map((d) => d.sequence).toSorted((a, b) => a! - b!)
        )
        // Room for 5 of 8: the cursor moves to the fifth, not past the rest.
        assert.isTrue(yield* move(0, 8, 5, 1))
        assert.deepStrictEqual(yield* sequences, [1, 2, 3, 4, 5])
        assert.isFalse(yield* move(8, 9, 5, 9))
        // No room: nothing is added and the cursor stays.
        assert.isFalse(yield* move(5, 8, 5, 6))
        assert.lengthOf(yield* sequences, 5)
        // As deliveries are made, fan-out goes on from where it paused.
        for (const c of yield* claimAt("w", now, 2, 100_000)) {
          if (c.orgId === org) yield* store.complete(outcome("w", org, c.delivery.id, now))
        }
        assert.isTrue(yield* move(5, 8, 5, 6))
        assert.isTrue(yield* move(7, 8, 100, 8))
        assert.deepStrictEqual(yield* sequences, [1, 2, 3, 4, 5, 6, 7, 8])
      })
    )

    it.effect("a fan-out from a stale cursor changes nothing", () =>
      Effect.gen(function* () {
        const store = yield* WebhookDeliveryStore
        const org = yield* newOrg
        const now = yield* DateTime.now
        const endpoint = yield* newEndpoint(org, now)
        assert.isFalse(
          yield* store.advance(org, endpoint.id, { from: 7, to: 9, at: now, maxWaiting: 100 }, deliveries(2, now))
        )
        assert.lengthOf((yield* store.deliveries(org, endpoint.id, { limit: 10 })).items, 0)
        assert.isTrue(
          yield* store.advance(org, endpoint.id, { from: 0, to: 2, at: now, maxWaiting: 100 }, deliveries(2, now))
        )
        assert.isFalse(
          yield* store.advance(org, endpoint.id, { from: 0, to: 2, at: now, maxWaiting: 100 }, deliveries(2, now))
        )
        assert.lengthOf((yield* store.deliveries(org, endpoint.id, { limit: 10 })).items, 2)
      })
    )

    it.effect("pages partition, newest delivery first, and another organization sees nothing", () =>
      Effect.gen(function* () {
        const store = yield* WebhookDeliveryStore
        const org = yield* newOrg
        const other = yield* newOrg
        const now = yield* DateTime.now
        const endpoint = yield* newEndpoint(org, now)
        const queued = yield* store.enqueue(org, endpoint.id, deliveries(5, now), { at: now })
        const seen: Array<string> = []
        let before: string | undefined
        for (;;) {
          const page = yield* store.deliveries(org, endpoint.id, { after: before, limit: 2 })
          seen.push(...page.items.map((d) => d.id))
          if (!page.hasMore) break
          before = page.items.at(-1)!.id
        }
        assert.deepStrictEqual(
          seen,
          queued
            .map((d) => d.id)
            .sort()
            .reverse()
        )
        assert.isTrue(Option.isSome(yield* store.delivery(org, queued[0]!.id)))
        assert.isTrue(Option.isNone(yield* store.delivery(other, queued[0]!.id)))
        assert.isTrue(Option.isNone(yield* store.retry(other, queued[0]!.id, now)))
        const test = { ...deliveries(1, now)[0]!, trigger: "test" as const }
        const lease = { owner: "test", until: DateTime.add(now, { minutes: 1 }), perEndpoint: 4 }
        assert.deepStrictEqual(yield* store.enqueueClaimed(other, endpoint.id, test, { at: now, lease }), Option.none())
        assert.lengthOf(yield* store.enqueue(other, endpoint.id, deliveries(1, now), { at: now }), 0)
        assert.lengthOf((yield* store.deliveries(other, endpoint.id, { limit: 10 })).items, 0)
        assert.lengthOf((yield* store.deliveries(org, endpoint.id, { limit: 10 })).items, 5)
      })
    )

    it.effect("a claim made with a delivery counts against the cap, and is counted by the workers' claims", () =>
      Effect.gen(function* () {
        const store = yield* WebhookDeliveryStore
        const org = yield* newOrg
        const now = yield* DateTime.now
        const endpoint = yield* newEndpoint(org, now)
        const lease = { owner: "test", until: DateTime.add(now, { minutes: 1 }), perEndpoint: 2 }
        const test = () => ({ ...deliveries(1, now)[0]!, sequence: null, trigger: "test" as const })
        yield* store.enqueue(org, endpoint.id, deliveries(3, now), { at: now })
        const held = (yield* claimAt("w", now, 2)).filter((c) => c.delivery.endpointId === endpoint.id)
        assert.lengthOf(held, 2)
        assert.strictEqual(yield* store.enqueueClaimed(org, endpoint.id, test(), { at: now, lease }), "busy")
        yield* store.complete(outcome("w", org, held[0]!.delivery.id, now))
        const made = yield* store.enqueueClaimed(org, endpoint.id, test(), { at: now, lease })
        assert.isTrue(made !== "busy" && Option.isSome(made) && made.value.status === "sending")
        // The test's lease is an attempt in flight: the worker finds the cap full.
        assert.lengthOf(
          (yield* claimAt("w", now, 2)).filter((c) => c.delivery.endpointId === endpoint.id),
          0
        )
        // The one the cap refused was not added.
        const tests = (yield* store.deliveries(org, endpoint.id, { limit: 10 })).items.filter(
          (d) => d.sequence === null
        )
        assert.lengthOf(tests, 1)
      })
    )

    it.effect("each attempt keeps what made it: how the delivery came, the schedule, or a retry asked for", () =>
      Effect.gen(function* () {
        const store = yield* WebhookDeliveryStore
        const org = yield* newOrg
        const now = yield* DateTime.now
        const endpoint = yield* newEndpoint(org, now)
        const [replayed] = yield* store.enqueue(org, endpoint.id, [{ ...deliveries(1, now)[0]!, trigger: "replay" }], {
          at: now
        })
        // Each a second after the last: attempts are listed in the order of their time-led ids.
        const attemptOnce = (n: number) =>
          Effect.gen(function* () {
            const [claimed] = (yield* claimAt("w", now, 1)).filter((c) => c.delivery.id === replayed!.id)
            const failed = outcome("w", org, replayed!.id, DateTime.add(now, { seconds: n }), claimed!.trigger)
            yield* store.complete({ ...failed, next: { status: "pending", dueAt: now } })
            return claimed!.trigger
          })
        const first = yield* attemptOnce(1)
        const second = yield* attemptOnce(2)
        yield* store.retry(org, replayed!.id, now)
        const third = yield* attemptOnce(3)
        assert.deepStrictEqual([first, second, third], ["replay", "retry", "manual_retry"])
        const recorded = Option.getOrThrow(yield* store.delivery(org, replayed!.id))
        assert.deepStrictEqual(
          recorded.attempts.map((a) => a.trigger),
          ["replay", "retry", "manual_retry"]
        )
      })
    )

    it.effect("of attempts that each disable an endpoint, one only is answered as having disabled it", () =>
      Effect.gen(function* () {
        const store = yield* WebhookDeliveryStore
        const org = yield* newOrg
        const now = yield* DateTime.now
        const endpoint = yield* newEndpoint(org, now)
        yield* store.enqueue(org, endpoint.id, deliveries(3, now), { at: now })
        const held = (yield* claimAt("w", now, 3)).filter((c) => c.delivery.endpointId === endpoint.id)
        assert.lengthOf(held, 3)
        const answers = yield* Effect.all(
          held.map((c) =>
            store.complete({
              ...outcome("w", org, c.delivery.id, now),
              next: { status: "pending", dueAt: now },
              endpoint: { health: "disable", reason: "gone" }
            })
          ),
          { concurrency: "unbounded" }
        )
        assert.deepStrictEqual(answers.filter((a) => a.disabledEndpoint).length, 1)
        const disabled = Option.getOrThrow(yield* (yield* WebhookEndpointStore).find(org, endpoint.id))
        assert.strictEqual(disabled.disabledReason, "gone")
      })
    )

    it.effect("deliveries waiting for a disabled endpoint are removed past their bound, not for an enabled one", () =>
      Effect.gen(function* () {
        const store = yield* WebhookDeliveryStore
        const org = yield* newOrg
        const now = yield* DateTime.now
        const old = DateTime.subtract(now, { days: 40 })
        const off = yield* newEndpoint(org, old)
        const on = yield* newEndpoint(org, old)
        const [stale] = yield* store.enqueue(org, off.id, deliveries(1, old), { at: old })
        const [recent] = yield* store.enqueue(org, off.id, deliveries(1, now), { at: now })
        const [waitingOn] = yield* store.enqueue(org, on.id, deliveries(1, old), { at: old })
        yield* (yield* WebhookEndpointStore).update(
          org,
          off.id,
          { enabled: { enabled: false, reason: "failing" } },
          now
        )
        const bound = DateTime.subtract(now, { days: 30 })
        assert.isAtLeast(yield* store.prune({ finishedBefore: old, waitingBefore: bound }), 1)
        assert.isTrue(Option.isNone(yield* store.delivery(org, stale!.id)))
        assert.isTrue(Option.isSome(yield* store.delivery(org, recent!.id)))
        assert.isTrue(Option.isSome(yield* store.delivery(org, waitingOn!.id)))
      })
    )

    it.effect("retention removes finished deliveries made before its bound, never pending ones", () =>
      Effect.gen(function* () {
        const store = yield* WebhookDeliveryStore
        const org = yield* newOrg
        const old = DateTime.subtract(yield* DateTime.now, { days: 400 })
        const endpoint = yield* newEndpoint(org, old)
        const [done, waiting] = yield* store.enqueue(org, endpoint.id, deliveries(2, old), { at: old })
        const [held] = (yield* claimAt("w", old, 1)).filter((c) => c.delivery.id === done!.id)
        assert.isDefined(held)
        yield* store.complete(outcome("w", org, done!.id, old))
        const bound = DateTime.add(old, { days: 1 })
        assert.isAtLeast(yield* store.prune({ finishedBefore: bound, waitingBefore: bound }), 1)
        assert.isTrue(Option.isNone(yield* store.delivery(org, done!.id)))
        assert.isTrue(Option.isSome(yield* store.delivery(org, waiting!.id)))
      })
    )
  })
