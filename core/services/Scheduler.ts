/**
 * The scheduler: claims due pairs and syncs them, `concurrency` at a time, for as long as it
 * runs; when nothing is due it waits `pollInterval`. Any number of schedulers (processes) can
 * share one database: claims are leased and skip pairs another holds. A run that fails is
 * recorded by the engine; a fault of the scheduler's own (the database gone) is logged and the
 * loop carries on after a pause.
 */
import { type Duration, Effect } from "effect"
import { type RunOutcome, SyncEngine } from "./SyncEngine.ts"

export interface SchedulerOptions {
  readonly worker: string
  readonly concurrency: number
  readonly pollInterval: Duration.Duration
  /** Told of every run, e.g. to count them. */
  readonly onOutcome?: (outcome: RunOutcome) => void
}

export const run = Effect.fn("Scheduler.run")(function* (options: SchedulerOptions) {
  const engine = yield* SyncEngine
  const round = engine
    .runDue({ worker: options.worker, limit: options.concurrency, concurrency: options.concurrency })
    .pipe(
      Effect.catchCause((cause) =>
        Effect.logError("scheduler round failed; retrying after a pause", cause).pipe(Effect.as([]))
      )
    )
  return yield* Effect.forever(
    Effect.flatMap(round, (outcomes) => {
      for (const outcome of outcomes) options.onOutcome?.(outcome)
      return outcomes.length === 0 ? Effect.sleep(options.pollInterval) : Effect.void
    })
  )
})
