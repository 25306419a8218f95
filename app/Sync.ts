/**
 * The sync side of the bundled app: the engine over PostgreSQL with the bundled connectors, and
 * the scheduler running in the background for the life of the app. Settings:
 * `SYNC_CONCURRENCY` (pairs synced at once, default 4) and `SYNC_POLL_SECONDS` (how often to
 * look for due pairs when none are, default 5).
 */
import { hostname } from "node:os"
import { Config, Duration, Effect, Layer, Schema } from "effect"
import * as Scheduler from "../core/services/Scheduler.ts"
import { EngineLive } from "./Layers.ts"

export const settings = Config.all({
  concurrency: Config.schema(
    Schema.FiniteFromString.check(Schema.isInt(), Schema.isBetween({ minimum: 1, maximum: 256 })),
    "SYNC_CONCURRENCY"
  ).pipe(Config.withDefault(4)),
  pollSeconds: Config.schema(Schema.FiniteFromString.check(Schema.isGreaterThan(0)), "SYNC_POLL_SECONDS").pipe(
    Config.withDefault(5)
  )
})

/** Runs the scheduler in the background while the layer lives. */
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
).pipe(Layer.provide(EngineLive))
