/**
 * The scheduler: `concurrency` slots, each syncing the next due pair as soon as it is free, so a
 * slow portal holds up its own slot, never the others. Due pairs are claimed a batch at a time,
 * four per slot, and wait for the next free slot: one claim statement per four runs of a slot.
 * The leases of the pairs it holds, waiting or syncing, are renewed while it runs, so they can be
 * short: a killed worker's pairs are taken by another once they run out. A scheduler that stops
 * hands back the leases of the pairs it has not finished, so that another worker takes them at
 * once rather than when the leases expire. `run` goes on for as long as it
 * runs, a slot waiting `pollInterval` when nothing is due; `drain` syncs what is due and
 * returns. Any number of schedulers (processes) can share one database: claims are leased and
 * skip pairs another holds. A run that fails is recorded by the engine; in `run`, a fault of the
 * scheduler's own (the database gone) is logged and the slot carries on after a pause. A claim is
 * untraced, so that an idle worker sends no spans: one that finds nothing is counted
 * (`sync_idle_polls_total`), and each run it finds is a trace of its own.
 */
import { type Duration, Effect, Metric, Semaphore } from "effect"
import type { Pair } from "../ports/PairStore.ts"
import { type RunOutcome, SyncEngine } from "./SyncEngine.ts"

export interface DrainOptions {
  readonly worker: string
  readonly concurrency: number
  /** Told of every run, e.g. to count or report them. */
  readonly onOutcome?: (outcome: RunOutcome) => Effect.Effect<void>
}

export interface SchedulerOptions extends DrainOptions {
  readonly pollInterval: Duration.Duration
}

const claimsPerSlot = 4

const idlePolls = Metric.counter("sync_idle_polls_total", {
  description: "Looks for due pairs that found none: idle polls, which make no spans.",
  incremental: true
})

/** Runs `slot` `concurrency` times at once; a slot's next run syncs one pair, false when none is due. */
const inSlots = (options: DrainOptions, slot: (next: Effect.Effect<boolean>) => Effect.Effect<void>) =>
  Effect.gen(function* () {
    const engine = yield* SyncEngine
    const claiming = yield* Semaphore.make(1)
    const waiting: Array<Pair> = []
    const held = new Set<Pair>()
    const nextPair = claiming.withPermits(1)(
      Effect.gen(function* () {
        if (waiting.length === 0) {
          // A poll: untraced, so that an idle worker sends no spans; each run it finds has its own.
          const claimed = yield* Effect.withTracerEnabled(
            engine.claimDue(options.worker, options.concurrency * claimsPerSlot),
            false
          )
          if (claimed.length === 0) yield* Metric.update(idlePolls, 1)
          for (const pair of claimed) held.add(pair)
          waiting.push(...claimed)
        }
        return waiting.shift()
      })
    )
    const next = Effect.gen(function* () {
      const pair = yield* nextPair
      if (pair === undefined) return false
      const outcome = yield* engine.runPair(pair, options.worker)
      held.delete(pair)
      if (options.onOutcome !== undefined) yield* options.onOutcome(outcome)
      return true
    })
    const handBack = Effect.suspend(() => engine.releaseClaims(options.worker, [...held])).pipe(
      Effect.catchCause((cause) => Effect.logWarning("could not hand back the scheduler's leases", cause))
    )
    yield* Effect.raceFirst(
      Effect.forEach(Array.from({ length: options.concurrency }), () => slot(next), {
        concurrency: "unbounded",
        discard: true
      }),
      engine.keepClaims(options.worker, () => [...held])
    ).pipe(Effect.ensuring(handBack))
  })

// Not a span: one that lasts as long as the worker would hold every run in one trace that never ends.
export const run = (options: SchedulerOptions) =>
  inSlots(options, (next) =>
    Effect.forever(
      next.pipe(
        Effect.catchCause((cause) =>
          Effect.logError("scheduler round failed; retrying after a pause", cause).pipe(Effect.as(false))
        ),
        Effect.flatMap((ran) => (ran ? Effect.void : Effect.sleep(options.pollInterval)))
      )
    )
  )

export const drain = Effect.fn("Scheduler.drain")(function* (options: DrainOptions) {
  yield* inSlots(options, (next) =>
    Effect.gen(function* () {
      while (yield* next) {}
    })
  )
})
