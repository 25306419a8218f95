/**
 * The webhook deliveries' retention as the app applies it: finished deliveries go after
 * `WEBHOOK_RETENTION_DAYS`; pending ones of an enabled endpoint wait for their attempt whatever
 * their age; those waiting for a disabled endpoint go once older than `EVENT_RETENTION_DAYS`,
 * past which a replay could not re-create them either.
 */
import { randomBytes } from "node:crypto"
import { assert, layer as withLayer } from "@effect/vitest"
import { ConfigProvider, DateTime, Effect, Option } from "effect"
import { TestClock } from "effect/testing"
import * as WebhookRetention from "../../app/WebhookRetention.ts"
import type { OrgId } from "../../core/shared/domain/Ids.ts"
import { deliveryId, endpointId } from "../../core/webhooks/domain/WebhookSigning.ts"
import type { WebhookEndpointId } from "../../core/webhooks/domain/Webhooks.ts"
import { WebhookDeliveryStore } from "../../core/webhooks/ports/WebhookDeliveryStore.ts"
import { WebhookEndpointStore } from "../../core/webhooks/ports/WebhookEndpointStore.ts"
import { PairStoreHarness } from "../contracts/PairStore.harness.ts"
import { memoryStorage } from "../webhooks/support/Services.ts"

const now = DateTime.makeUnsafe("2026-11-26T00:00:00Z")
const daysAgo = (days: number) => DateTime.subtract(now, { days })

const endpoint = (org: OrgId) =>
  Effect.flatMap(WebhookEndpointStore, (store) =>
    store.create({
      id: endpointId(randomBytes(16), DateTime.toEpochMillis(daysAgo(60))),
      orgId: org,
      url: "https://hooks.example/in",
      description: null,
      eventTypes: ["receivable.created"],
      enabled: true,
      sealedSecret: "v1:sealed",
      at: daysAgo(60),
      maxPerOrganization: 20
    })
  )

/** A pending delivery made `days` ago; answers its id. */
const waiting = (org: OrgId, endpoint: WebhookEndpointId, days: number) =>
  Effect.flatMap(WebhookDeliveryStore, (store) =>
    Effect.map(
      store.enqueue(
        org,
        endpoint,
        [
          {
            id: deliveryId(randomBytes(16), DateTime.toEpochMillis(daysAgo(days))),
            eventId: `evt_${randomBytes(16).toString("hex")}`,
            eventType: "receivable.created",
            sequence: 1,
            body: "{}",
            dueAt: daysAgo(days),
            trigger: "scheduled"
          }
        ],
        { at: daysAgo(days) }
      ),
      ([made]) => made!.id
    )
  )

withLayer(memoryStorage)("webhook deliveries' retention", (it) => {
  it.effect(
    "removes deliveries waiting for a disabled endpoint past the events' retention, and no other pending one",
    () =>
      Effect.gen(function* () {
        yield* TestClock.setTime(DateTime.toEpochMillis(now))
        const endpoints = yield* WebhookEndpointStore
        const deliveries = yield* WebhookDeliveryStore
        const org = (yield* (yield* PairStoreHarness).addPair({ dueInSeconds: 3600 })).orgId
        const off = yield* endpoint(org)
        const on = yield* endpoint(org)
        // Between the two bounds (30 days for deliveries, 45 for events): only the events' applies.
        const offWithin = yield* waiting(org, off.id, 40)
        const offPast = yield* waiting(org, off.id, 50)
        const onPast = yield* waiting(org, on.id, 50)
        yield* endpoints.update(org, off.id, { enabled: { enabled: false, reason: "failing" } }, daysAgo(1))
        const removed = yield* WebhookRetention.apply.pipe(
          Effect.provide(ConfigProvider.layer(ConfigProvider.fromUnknown({ EVENT_RETENTION_DAYS: "45" })))
        )
        assert.strictEqual(removed, 1)
        assert.isTrue(Option.isNone(yield* deliveries.delivery(org, offPast)))
        assert.isTrue(Option.isSome(yield* deliveries.delivery(org, offWithin)))
        assert.isTrue(Option.isSome(yield* deliveries.delivery(org, onPast)))
      })
  )
})
