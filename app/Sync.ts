/**
 * The sync side of the bundled app: the engine over PostgreSQL with the bundled connectors, and
 * the scheduler running in the background for the life of the app, beside the webhook worker
 * (fan-out and delivery) and its retention. Settings: `SYNC_CONCURRENCY` (pairs synced at once,
 * default 4) and `SYNC_POLL_SECONDS` (how often to look for due pairs when none are, default 5);
 * the webhook worker's are `webhookSettings`.
 */
import { hostname } from "node:os"
import { Config, Duration, Effect, Layer, Schema } from "effect"
import { observeSyncRun } from "../adapters/http/probes/Metrics.ts"
import * as Scheduler from "../core/receivables/services/Scheduler.ts"
import { SyncEngine } from "../core/receivables/services/SyncEngine.ts"
import {
  endpointConcurrency,
  organizationConcurrency,
  WebhookDelivery
} from "../core/webhooks/services/WebhookDelivery.ts"
import { EngineLive, WebhooksLive } from "./Layers.ts"
import * as WebhookRetention from "./WebhookRetention.ts"

export const settings = Config.all({
  concurrency: Config.schema(
    Schema.FiniteFromString.check(Schema.isInt(), Schema.isBetween({ minimum: 1, maximum: 256 })),
    "SYNC_CONCURRENCY"
  ).pipe(Config.withDefault(4)),
  pollSeconds: Config.schema(Schema.FiniteFromString.check(Schema.isGreaterThan(0)), "SYNC_POLL_SECONDS").pipe(
    Config.withDefault(5)
  )
})

/**
 * `WEBHOOK_CONCURRENCY`: attempts in flight at once per worker (default 16);
 * `WEBHOOK_ENDPOINT_CONCURRENCY`: attempts in flight to one endpoint across every worker
 * (default 4); `WEBHOOK_ORG_CONCURRENCY`: attempts of one organization in flight per worker
 * (default 8); `WEBHOOK_POLL_MILLISECONDS`: how often an idle worker looks for new events and due
 * deliveries (default 250, which keeps a commit's first attempt well within a second).
 */
export const webhookSettings = Config.all({
  concurrency: Config.schema(
    Schema.FiniteFromString.check(Schema.isInt(), Schema.isBetween({ minimum: 1, maximum: 1024 })),
    "WEBHOOK_CONCURRENCY"
  ).pipe(Config.withDefault(16)),
  perEndpoint: endpointConcurrency,
  perOrganization: organizationConcurrency,
  pollMilliseconds: Config.schema(
    Schema.FiniteFromString.check(Schema.isInt(), Schema.isBetween({ minimum: 10, maximum: 60_000 })),
    "WEBHOOK_POLL_MILLISECONDS"
  ).pipe(Config.withDefault(250))
})

// Past the 15 s an attempt may take, with room: a lease outlives its attempt unless the worker died.
const webhookLease = Duration.minutes(1)

/** Fans events out to webhook deliveries and attempts them, in the background while the layer lives. */
export const WebhookWorkerLive = Layer.effectDiscard(
  Effect.gen(function* () {
    const { concurrency, perEndpoint, perOrganization, pollMilliseconds } = yield* webhookSettings
    const worker = yield* WebhookDelivery
    yield* Effect.forkScoped(
      worker.run({
        worker: `${hostname()}:${process.pid}`,
        concurrency,
        perEndpoint,
        perOrganization,
        lease: webhookLease,
        pollInterval: Duration.millis(pollMilliseconds)
      })
    )
  })
).pipe(Layer.merge(WebhookRetention.layer), Layer.provide(WebhooksLive))

/** The engine with each run timed, for `sync_run_duration_seconds`. */
const TimedEngineLive = Layer.effect(
  SyncEngine,
  Effect.map(SyncEngine, (engine) =>
    SyncEngine.of({
      ...engine,
      runPair: (pair, worker) =>
        Effect.tap(Effect.timed(engine.runPair(pair, worker)), ([took, outcome]) =>
          observeSyncRun(outcome._tag, Duration.toSeconds(took))
        ).pipe(Effect.map(([, outcome]) => outcome))
    })
  )
).pipe(Layer.provide(EngineLive))

/** Runs the scheduler and the webhook worker in the background while the layer lives. */
export const SchedulerLive = Layer.effectDiscard(
  Effect.gen(function* () {
    const { concurrency, pollSeconds } = yield* settings
    yield* Effect.forkScoped(
      Scheduler.run({
        worker: `${hostname()}:${process.pid}`,
        concurrency,
        pollInterval: Duration.seconds(pollSeconds)
      })
    )
  })
).pipe(Layer.provide(TimedEngineLive), Layer.merge(WebhookWorkerLive))
