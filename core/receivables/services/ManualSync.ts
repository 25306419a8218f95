/**
 * "Sync now": an operator's sync of one pair outside its schedule, limited per pair so that it
 * cannot be used to hammer a debtor's portal, which other tenants share. It is refused while the
 * pair's newest run is less than `MANUAL_SYNC_MIN_SECONDS` old (default 60), and while the portal's
 * `Retry-After` recorded on that run has not passed; the refusal says when it may run. The rule is
 * a pure function (`manualSyncNotBefore`); the service reads the newest run, marks the pair (of
 * two requests at once, one marks it and the other is refused) and runs the engine.
 * Depends on `effect` and the core alone.
 */
import { Config, Context, DateTime, Duration, Effect, Layer, Schema } from "effect"
import { DirectoryStore, type SyncRunRecord } from "../ports/DirectoryStore.ts"
import { PairStore } from "../ports/PairStore.ts"
import { DirectoryRefused } from "./Directory.ts"
import { type RunOutcome, SyncEngine } from "./SyncEngine.ts"

/** The shortest time between a pair's last run and a manual one: `MANUAL_SYNC_MIN_SECONDS`, default 60. */
export const minSecondsSetting = Config.schema(
  Schema.FiniteFromString.check(Schema.isInt(), Schema.isGreaterThanOrEqualTo(0)),
  "MANUAL_SYNC_MIN_SECONDS"
).pipe(Config.withDefault(60))

/** Why a manual sync must wait, and until when. */
export interface ManualSyncWait {
  readonly until: DateTime.Utc
  readonly reason: "recent" | "portal"
}

/**
 * When a manual sync of a pair whose newest run is `last` may run, if not at `now`: not within
 * `minGap` of that run (of its end, or its start while it runs), and not before the time its
 * portal asked for. Undefined when it may run at `now`.
 */
export const manualSyncNotBefore = (
  last: Pick<SyncRunRecord, "startedAt" | "finishedAt" | "portalRetryAt"> | undefined,
  now: DateTime.Utc,
  minGap: Duration.Duration
): ManualSyncWait | undefined => {
  if (last === undefined) return undefined
  const recent: ManualSyncWait = {
    until: DateTime.addDuration(last.finishedAt ?? last.startedAt, minGap),
    reason: "recent"
  }
  const portal = last.portalRetryAt
  const wait: ManualSyncWait =
    portal !== undefined && DateTime.isGreaterThan(portal, recent.until) ? { until: portal, reason: "portal" } : recent
  return DateTime.isGreaterThan(wait.until, now) ? wait : undefined
}

const refusalMessage = (id: string, wait: ManualSyncWait, minGap: Duration.Duration) =>
  wait.reason === "portal"
    ? `integration ${id} may not sync before ${DateTime.formatIso(wait.until)}: its portal asked not to be asked again until then (Retry-After)`
    : `integration ${id} synced less than ${Duration.format(minGap)} ago (MANUAL_SYNC_MIN_SECONDS); it may sync again from ${DateTime.formatIso(wait.until)}`

export class ManualSync extends Context.Service<
  ManualSync,
  { readonly syncNow: (id: string, worker: string) => Effect.Effect<RunOutcome, DirectoryRefused> }
>()("core/ManualSync") {
  static readonly layerWith = (options: { readonly minGap: Duration.Duration }) =>
    Layer.effect(
      ManualSync,
      Effect.gen(function* () {
        const pairs = yield* PairStore
        const directory = yield* DirectoryStore
        const engine = yield* SyncEngine

        const syncNow = Effect.fn("ManualSync.syncNow")(function* (id: string, worker: string) {
          const pair = yield* pairs
            .get(id)
            .pipe(Effect.mapError(() => new DirectoryRefused({ message: `no integration with id "${id}"` })))
          const [last] = yield* directory.recentRuns(pair.orgId, pair.id, 1)
          const now = yield* DateTime.now
          const wait = manualSyncNotBefore(last, now, options.minGap)
          if (wait !== undefined) {
            return yield* new DirectoryRefused({ message: refusalMessage(id, wait, options.minGap), wait })
          }
          // Two operators asking at once both read the same last run: only one marks the pair.
          if (!(yield* directory.markManualSync(pair.id, now, DateTime.subtractDuration(now, options.minGap)))) {
            return yield* new DirectoryRefused({
              message: `integration ${id} is being synced now at another request; it may sync again ${Duration.format(options.minGap)} after that one`,
              wait: { reason: "busy" }
            })
          }
          return yield* engine.runPair(pair, worker)
        })

        return ManualSync.of({ syncNow })
      })
    )

  /** With `MANUAL_SYNC_MIN_SECONDS`. */
  static readonly layer = Layer.unwrap(
    Effect.map(minSecondsSetting, (seconds) => ManualSync.layerWith({ minGap: Duration.seconds(seconds) }))
  )
}
