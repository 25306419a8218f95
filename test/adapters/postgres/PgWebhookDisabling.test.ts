/**
 * Two workers' attempts that each disable the same endpoint, completing at once: PostgreSQL lets
 * one of them be the one that disabled it, so the organization is told once. Both statements are
 * held behind a lock on the endpoint's row until both wait, then run: the second must read the
 * first's commit, not the snapshot it started with.
 */
import { randomBytes } from "node:crypto"
import { assert, layer as withLayer } from "@effect/vitest"
import { DateTime, Deferred, Effect, Fiber } from "effect"
import { SqlClient } from "effect/sql"
import { attemptId, deliveryId, endpointId } from "../../../core/webhooks/domain/WebhookSigning.ts"
import { WebhookDeliveryStore } from "../../../core/webhooks/ports/WebhookDeliveryStore.ts"
import { WebhookEndpointStore } from "../../../core/webhooks/ports/WebhookEndpointStore.ts"
import { PairStoreHarness } from "../../contracts/PairStore.harness.ts"
import { eventually } from "../../support/Eventually.ts"
import { postgresStorage } from "../../webhooks/support/Services.ts"

withLayer(postgresStorage, { excludeTestServices: true, timeout: 60_000 })("disabling a webhook endpoint", (it) => {
  it.effect("of two attempts disabling it at once, one only is answered as having disabled it", () =>
    Effect.gen(function* () {
      const store = yield* WebhookDeliveryStore
      const sql = yield* SqlClient.SqlClient
      const org = (yield* (yield* PairStoreHarness).addPair({ dueInSeconds: 3600 })).orgId
      const now = yield* DateTime.now
      const endpoint = yield* (yield* WebhookEndpointStore).create({
        id: endpointId(randomBytes(16), DateTime.toEpochMillis(now)),
        orgId: org,
        url: "https://hooks.example/in",
        description: null,
        eventTypes: ["receivable.created"],
        enabled: true,
        sealedSecret: "v1:sealed",
        at: now,
        maxPerOrganization: 20
      })
      yield* store.enqueue(
        org,
        endpoint.id,
        [1, 2].map((n) => ({
          id: deliveryId(randomBytes(16), DateTime.toEpochMillis(now) + n),
          eventId: `evt_${randomBytes(16).toString("hex")}`,
          eventType: "receivable.created" as const,
          sequence: n,
          body: "{}",
          dueAt: now,
          trigger: "scheduled" as const
        })),
        { at: now }
      )
      const claimed = yield* store.claim({
        owner: "w",
        now,
        leaseUntil: DateTime.add(now, { minutes: 1 }),
        limit: 10,
        perEndpoint: 2,
        perOrganization: 10,
        held: new Map()
      })
      assert.lengthOf(claimed, 2)

      // Holds the endpoint's row until both completions wait behind it.
      const locked = yield* Deferred.make<void>()
      const release = yield* Deferred.make<void>()
      const holder = yield* Effect.forkChild(
        sql.withTransaction(
          Effect.gen(function* () {
            yield* sql`SELECT 1 FROM webhook_endpoints WHERE id = ${endpoint.id} FOR UPDATE`
            yield* Deferred.succeed(locked, undefined)
            yield* Deferred.await(release)
          })
        )
      )
      yield* Deferred.await(locked)
      const completions = yield* Effect.forkChild(
        Effect.all(
          claimed.map((c) =>
            store.complete({
              owner: "w",
              orgId: org,
              attempt: {
                id: attemptId(randomBytes(16), DateTime.toEpochMillis(now)),
                deliveryId: c.delivery.id,
                trigger: c.trigger,
                startedAt: now,
                durationMs: 1,
                outcome: "http_error",
                responseStatus: 410,
                responseBody: null,
                error: "answered 410"
              },
              next: { status: "pending", dueAt: now },
              endpoint: { health: "disable", reason: "gone" }
            })
          ),
          { concurrency: "unbounded" }
        )
      )
      yield* eventually(
        "both completions waiting on the endpoint's row",
        Effect.map(
          sql<{ waiting: string }>`
            SELECT count(*)::text AS waiting FROM pg_stat_activity
            WHERE datname = current_database() AND wait_event_type = 'Lock'`,
          ([row]) => row!.waiting === "2"
        )
      )
      yield* Deferred.succeed(release, undefined)
      yield* Fiber.join(holder)
      const answers = yield* Fiber.join(completions)
      assert.deepStrictEqual(answers.map((a) => a.disabledEndpoint).sort(), [false, true])
    })
  )
})
