/**
 * `sync run`: sync every due integration; `sync now`: sync one integration outside its schedule,
 * refused while it synced less than `MANUAL_SYNC_MIN_SECONDS` ago or its portal's `Retry-After`
 * has not passed (`core/receivables/services/ManualSync.ts`). Each run's counts are printed.
 */
import { Console, Effect } from "effect"
import { Argument, Command } from "effect/cli"
import { ManualSync } from "../../core/receivables/services/ManualSync.ts"
import * as Scheduler from "../../core/receivables/services/Scheduler.ts"
import type { RunOutcome } from "../../core/receivables/services/SyncEngine.ts"
import { inertJson } from "../../core/shared/domain/VisibleText.ts"
import { json, show, time } from "./Common.ts"

const outcomeLine = (outcome: RunOutcome) =>
  outcome._tag === "Succeeded"
    ? `${outcome.integrationId}  ok  fetched ${outcome.counts.fetched}, created ${outcome.counts.created}, updated ${outcome.counts.updated}, unchanged ${outcome.counts.unchanged}, quarantined ${outcome.counts.quarantined}`
    : `${outcome.integrationId}  failed: ${outcome.error} (retry at ${time(outcome.retryAt)})`

const outcomeJson = (o: RunOutcome) =>
  o._tag === "Succeeded"
    ? { integration_id: o.integrationId, outcome: "succeeded", ...o.counts }
    : { integration_id: o.integrationId, outcome: "failed", error: o.error, retry_at: time(o.retryAt) }

/** Prints the outcomes (a JSON array with `--json`); exit code 1 when a run failed. */
const report = (outcomes: ReadonlyArray<RunOutcome>, asJson: boolean) =>
  Effect.gen(function* () {
    if (asJson) yield* Console.log(inertJson(outcomes.map(outcomeJson), 2))
    if (outcomes.some((o) => o._tag === "Failed")) process.exitCode = 1
  })

const worker = () => `cli:${process.pid}`

const syncRun = Command.make(
  "run",
  { json },
  Effect.fn(function* ({ json }) {
    const outcomes: Array<RunOutcome> = []
    const onOutcome = (outcome: RunOutcome) =>
      Effect.sync(() => outcomes.push(outcome)).pipe(Effect.andThen(json ? Effect.void : show([outcomeLine(outcome)])))
    yield* Scheduler.drain({ worker: worker(), concurrency: 4, onOutcome })
    if (!json && outcomes.length === 0) yield* Console.log("no integration is due")
    yield* report(outcomes, json)
  })
).pipe(Command.withDescription("Sync every integration that is due"))

const syncNow = Command.make(
  "now",
  { id: Argument.String("integration-id").pipe(Argument.withDescription("The integration's id")), json },
  Effect.fn(function* ({ id, json }) {
    const outcome = yield* (yield* ManualSync).syncNow(id, worker())
    if (!json) yield* show([outcomeLine(outcome)])
    yield* report([outcome], json)
  })
).pipe(
  Command.withDescription(
    "Sync one integration now, unless it synced less than MANUAL_SYNC_MIN_SECONDS ago or its portal's Retry-After has not passed"
  )
)

export const sync = Command.make("sync").pipe(
  Command.withDescription("Sync with debtor portals"),
  Command.withSubcommands([syncRun, syncNow])
)
