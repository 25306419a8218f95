/** `sync run`: sync one integration now, or every due one, printing each run's counts. */
import { Console, Effect, Option } from "effect"
import { Command, Flag } from "effect/cli"
import { inertJson } from "../../core/domain/VisibleText.ts"
import { PairStore } from "../../core/ports/PairStore.ts"
import { DirectoryRefused } from "../../core/services/Directory.ts"
import * as Scheduler from "../../core/services/Scheduler.ts"
import { type RunOutcome, SyncEngine } from "../../core/services/SyncEngine.ts"
import { json, show, time } from "./Common.ts"

const outcomeLine = (outcome: RunOutcome) =>
  outcome._tag === "Succeeded"
    ? `${outcome.integrationId}  ok  fetched ${outcome.counts.fetched}, created ${outcome.counts.created}, updated ${outcome.counts.updated}, unchanged ${outcome.counts.unchanged}, quarantined ${outcome.counts.quarantined}`
    : `${outcome.integrationId}  failed: ${outcome.error} (retry at ${time(outcome.retryAt)})`

const syncRun = Command.make(
  "run",
  {
    integration: Flag.String("integration").pipe(Flag.withDescription("Only this integration"), Flag.optional),
    json
  },
  Effect.fn(function* ({ integration, json }) {
    const engine = yield* SyncEngine
    const worker = `cli:${process.pid}`
    const outcomes: Array<RunOutcome> = []
    const report = (outcome: RunOutcome) =>
      Effect.sync(() => outcomes.push(outcome)).pipe(Effect.andThen(json ? Effect.void : show([outcomeLine(outcome)])))
    if (Option.isSome(integration)) {
      const pair = yield* (yield* PairStore)
        .get(integration.value)
        .pipe(Effect.mapError(() => new DirectoryRefused({ message: `no integration with id "${integration.value}"` })))
      yield* report(yield* engine.runPair(pair, worker))
    } else {
      yield* Scheduler.drain({ worker, concurrency: 4, onOutcome: report })
      if (!json && outcomes.length === 0) yield* Console.log("no integration is due")
    }
    if (json) {
      yield* Console.log(
        inertJson(
          outcomes.map((o) =>
            o._tag === "Succeeded"
              ? { integration_id: o.integrationId, outcome: "succeeded", ...o.counts }
              : { integration_id: o.integrationId, outcome: "failed", error: o.error, retry_at: time(o.retryAt) }
          ),
          2
        )
      )
    }
    if (outcomes.some((o) => o._tag === "Failed")) process.exitCode = 1
  })
).pipe(Command.withDescription("Sync now: one integration, or every due one"))

export const sync = Command.make("sync").pipe(
  Command.withDescription("Sync with debtor portals"),
  Command.withSubcommands([syncRun])
)
