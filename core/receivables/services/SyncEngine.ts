/**
 * The sync engine, in two phases. Fetch: a pair's documents are read through its connector and
 * staged as they arrive, under a lease of the run's own renewed by a heartbeat, with no
 * transaction open and no connection held while the portal answers (`PairStore.startRun`).
 * Apply: one locked session of the store (`PairStore.session`) reads the staged documents a chunk
 * at a time, plans each chunk against the pair's stored receivables and writes it, then records
 * the run and the pair's next sync time, and commits; a run whose lease was lost applies nothing.
 * The chunking, duplicates across chunks, totals and the quarantine cap live here, so that any
 * store can serve. A failure anywhere leaves the pair as it was; the run is recorded as failed and
 * the pair is retried with a capped exponential backoff, or, when the connector says retrying
 * cannot help, after its normal interval. Every sync has an overall deadline, and a portal's
 * `Retry-After` is honoured up to a cap. Depends on ports only.
 */
import { Cause, Context, DateTime, Duration, Effect, Layer, Metric, Option, Random, Schedule, Stream } from "effect"
import { IdSource } from "../../shared/ports/IdSource.ts"
import { Secrets } from "../../shared/ports/Secrets.ts"
import {
  type FetchedDocument,
  isStorableText,
  type PairSyncPlan,
  planPairSync,
  type Quarantined
} from "../domain/PairSync.ts"
import type { StatusMapping } from "../domain/Status.ts"
import * as SyncSchedule from "../domain/SyncSchedule.ts"
import { type Pair, PairStore, type RunCounts, type RunLease } from "../ports/PairStore.ts"
import {
  type PortalConnector,
  PortalConnectors,
  permanentFailure,
  retryableFailure,
  secretReader
} from "../ports/PortalConnector.ts"

export type RunOutcome =
  | { readonly _tag: "Succeeded"; readonly integrationId: string; readonly counts: RunCounts }
  | { readonly _tag: "Failed"; readonly integrationId: string; readonly error: string; readonly retryAt: DateTime.Utc }

/** The innermost message of an unexpected failure: the driver's words say what went wrong. */
const describeDefect = (cause: Cause.Cause<unknown>): string => {
  let error: unknown = Cause.squash(cause)
  while (error instanceof Error && error.cause instanceof Error) error = error.cause
  return error instanceof Error ? error.message : String(error)
}

/** A sync's overall deadline unless its integration sets one: fetch, plan and write together. */
export const defaultDeadline = Duration.minutes(5)

/**
 * How long a claimed pair and a run are leased by default. Leases are renewed while their holder
 * lives (every third of it), so a short one costs a statement now and then and lets another
 * worker take a killed worker's pairs within a minute.
 */
export const defaultLease = Duration.seconds(30)

/** The longest deadline a pair may have. */
export const maxDeadline = Duration.minutes(9)

/** The shortest deadline a pair may have. */
export const minDeadline = Duration.seconds(10)

/** True for a deadline a pair may have. */
export const isDeadline = (deadline: Duration.Duration): boolean =>
  Duration.isGreaterThanOrEqualTo(deadline, minDeadline) && Duration.isLessThanOrEqualTo(deadline, maxDeadline)

/** The longest a portal's `Retry-After` is honoured: a portal cannot park a pair for years. */
export const retryAfterCap = Duration.hours(24)

// How a failed run is recorded while the database does not answer: again and again, backing off
// to every 30 s, for as long as the longest sync could have lasted; by then another worker has
// taken the pair, its lease having run out.
const untilTheDatabaseAnswers = Schedule.exponential("500 millis").pipe(
  Schedule.modifyDelay(({ duration }) => Effect.succeed(Duration.min(duration, Duration.seconds(30)))),
  Schedule.upTo({ duration: Duration.sum(maxDeadline, Duration.minutes(1)) })
)

const syncRuns = Metric.counter("sync_runs_total", {
  description: "Pair syncs run by this process, by outcome.",
  incremental: true
})

/** Documents planned and written together; the memory a sync needs does not grow past it. */
export const defaultChunkSize = 2_000

/** Quarantine reasons kept on a run's record; the count is always complete. */
export const quarantineKept = 100

interface Totals {
  readonly counts: RunCounts
  readonly quarantine: ReadonlyArray<Quarantined>
}

const emptyTotals: Totals = {
  counts: { fetched: 0, created: 0, updated: 0, unchanged: 0, quarantined: 0 },
  quarantine: []
}

const addTotals = (totals: Totals, plan: PairSyncPlan): Totals => ({
  counts: {
    fetched: totals.counts.fetched + plan.fetched,
    created: totals.counts.created + plan.inserts.length,
    updated: totals.counts.updated + plan.updates.length,
    unchanged: totals.counts.unchanged + plan.unchanged,
    quarantined: totals.counts.quarantined + plan.quarantined.length
  },
  quarantine:
    totals.quarantine.length >= quarantineKept
      ? totals.quarantine
      : [...totals.quarantine, ...plan.quarantined].slice(0, quarantineKept)
})

/** The integration's own wording first, then the connector's: one mapping, built once a sync. */
const mappingFor = (connector: PortalConnector, config: unknown): StatusMapping => {
  const own = connector.statusMappingOf?.(config)
  return own === undefined || own.size === 0 ? connector.statusMapping : new Map([...connector.statusMapping, ...own])
}

export interface SyncEngineOptions {
  /** The deadline of a pair whose integration sets none. */
  readonly deadline: Duration.Duration
  /** Documents staged, planned and written together; `defaultChunkSize` when not given. */
  readonly chunkSize?: number | undefined
  /** How long claims and runs are leased between renewals; `defaultLease` when not given. */
  readonly lease?: Duration.Duration | undefined
}

export class SyncEngine extends Context.Service<
  SyncEngine,
  {
    /** Syncs one pair now; never fails: a failure is recorded and scheduled for retry. */
    readonly runPair: (integration: Pair, worker: string) => Effect.Effect<RunOutcome>
    /**
     * Leases up to `limit` due pairs to `worker`, long enough for a slow portal; a crashed
     * worker's pairs are taken over once their leases expire.
     */
    readonly claimDue: (worker: string, limit: number) => Effect.Effect<ReadonlyArray<Pair>>
    /** Hands back the leases `worker` still holds on these pairs. */
    readonly releaseClaims: (worker: string, pairs: ReadonlyArray<Pair>) => Effect.Effect<void>
    /** Renews the leases `worker` holds on these pairs, every third of a lease, for as long as it runs. */
    readonly keepClaims: (worker: string, pairs: () => ReadonlyArray<Pair>) => Effect.Effect<never>
  }
>()("core/SyncEngine") {
  static readonly layerWith = (options: SyncEngineOptions) =>
    Layer.effect(
      SyncEngine,
      Effect.gen(function* () {
        const store = yield* PairStore
        const connectors = yield* PortalConnectors
        const ids = yield* IdSource
        const secrets = yield* Secrets
        const secret = secretReader(secrets.resolve)
        const chunkSize = options.chunkSize ?? defaultChunkSize
        const lease = options.lease ?? defaultLease
        const renewEvery = Duration.divideUnsafe(lease, 3)

        // A renewal the database did not answer is tried again at the next beat: the lease has
        // two more beats before it runs out.
        const heartbeat = (run: RunLease) =>
          Effect.sleep(renewEvery).pipe(
            Effect.andThen(run.renew),
            Effect.catchCause((cause) =>
              Effect.logWarning("could not renew a sync run's lease", cause).pipe(Effect.as(true))
            ),
            Effect.repeat({ while: (held) => held })
          )

        const sync = Effect.fn("SyncEngine.sync")(function* (integration: Pair, worker: string) {
          const connector = yield* Option.match(connectors.get(integration.connector), {
            onNone: () => Effect.fail(permanentFailure(`no connector of kind "${integration.connector}"`)),
            onSome: Effect.succeed
          })
          const startedAt = yield* DateTime.now
          const nextSyncAt = SyncSchedule.nextAfterSuccess(startedAt, integration.interval, yield* Random.next)
          const afterApply: Array<Effect.Effect<void>> = []
          const documents = connector.fetch({
            integrationId: integration.id,
            orgId: integration.orgId,
            vendorId: integration.refs.vendor.id,
            debtorId: integration.refs.debtor.id,
            config: integration.config,
            now: startedAt,
            secret,
            afterApply: (remember) =>
              Effect.sync(() => {
                afterApply.push(remember)
              })
          })
          // Fetch: the answer is staged a chunk at a time as it arrives, so that a pair of any
          // size is fetched with a chunk's documents in memory, and nothing of the database is
          // held while the portal makes us wait.
          const run = yield* store.startRun(integration, worker, lease)
          yield* Effect.forkScoped(heartbeat(run))
          const fetched = yield* documents.pipe(
            Stream.rechunk(chunkSize),
            Stream.chunks,
            Stream.runFoldEffect(
              () => 0,
              (count, chunk: ReadonlyArray<FetchedDocument>) => Effect.as(run.stage(chunk), count + chunk.length)
            )
          )
          const fetchedAt = yield* DateTime.now
          // Apply: one short session under the pair's lock.
          const session = yield* store
            .session(integration, worker, startedAt, { lease: run, fetchedAt })
            .pipe(
              Effect.mapError(() =>
                retryableFailure(
                  "the sync's lease ran out before its fetch could be applied (its worker stalled or lost the database); nothing was applied"
                )
              )
            )
          // A key repeated in the answer is a duplicate in whichever chunk it comes back: planning
          // records every key it sees here, so the outcome does not depend on the chunk size. Only
          // the keys are kept for the whole answer (tens of bytes each), never its documents.
          const planning = {
            refs: integration.refs,
            now: session.at,
            statusMapping: mappingFor(connector, integration.config),
            newReceivableId: ids.receivableId,
            seen: new Set<string>()
          }
          // Each chunk is planned against only that chunk's stored receivables.
          let totals = emptyTotals
          for (let from = 0; from < fetched; from += chunkSize) {
            const chunk = yield* session.staged(from, chunkSize)
            // A key that cannot be stored matches nothing stored, and is quarantined.
            const keys = chunk.map((document) => document.documentKey).filter(isStorableText)
            const plan = planPairSync(yield* session.receivablesByKeys(keys), chunk, planning)
            yield* session.writeChunk(plan)
            totals = addTotals(totals, plan)
          }
          yield* session.finish({ counts: totals.counts, quarantine: totals.quarantine, nextSyncAt })
          // Only now is what the connector read kept as read: a sync that failed before this
          // point reads it again next time.
          yield* Effect.forEach(afterApply, (remember) => remember, { discard: true })
          return totals.counts
        }, Effect.scoped)

        // A sync past its deadline is interrupted, which closes its session unfinished: the pair is
        // as it was. A slow portal may be faster later, so the failure is retryable.
        const withinDeadline = (integration: Pair, worker: string) => {
          const deadline = integration.deadline ?? options.deadline
          return Effect.timeoutOrElse(sync(integration, worker), {
            duration: deadline,
            orElse: () =>
              Effect.fail(
                retryableFailure(
                  `the sync did not finish within its deadline of ${Duration.format(deadline)} (${integration.deadline === undefined ? "SYNC_DEADLINE_SECONDS" : "the integration's --deadline"})`
                )
              )
          })
        }

        const runPair = Effect.fn("SyncEngine.runPair")(function* (integration: Pair, worker: string) {
          const startedAt = yield* DateTime.now
          const exit = yield* Effect.exit(withinDeadline(integration, worker))
          yield* Metric.update(
            Metric.withAttributes(syncRuns, { outcome: exit._tag === "Success" ? "succeeded" : "failed" }),
            1
          )
          if (exit._tag === "Success") {
            return { _tag: "Succeeded", integrationId: integration.id, counts: exit.value } as const
          }
          const failure = Cause.findErrorOption(exit.cause)
          const error = Option.isSome(failure) ? failure.value.message : describeDefect(exit.cause)
          const retryable = Option.isNone(failure) || failure.value.retryable
          const now = yield* DateTime.now
          const random = yield* Random.next
          const backoff = retryable
            ? SyncSchedule.nextAfterFailure(now, integration.consecutiveFailures + 1, random)
            : SyncSchedule.nextAfterSuccess(now, integration.interval, random)
          // A portal that said when to come back is not asked before then, up to the cap.
          const portalAsked = Option.flatMap(failure, (f) => Option.fromNullishOr(f.retryAfterSeconds))
          const capped = Option.exists(portalAsked, (seconds) => seconds > Duration.toSeconds(retryAfterCap))
          const portalRetryAt = Option.map(portalAsked, (seconds) =>
            DateTime.addDuration(now, Duration.min(Duration.seconds(seconds), retryAfterCap))
          )
          const retryAt = Option.match(portalRetryAt, {
            onNone: () => backoff,
            onSome: (asked) => DateTime.max(backoff, asked)
          })
          const recorded = capped
            ? `${error} (the portal asked to wait ${Option.getOrThrow(portalAsked)} s; waiting ${Duration.format(retryAfterCap)}, the most a portal is granted)`
            : error
          // A run cut off by a database outage is recorded once the database answers again, which
          // also hands back the pair's lease: its retry then comes after the backoff, not after the
          // lease expires. Past the lease, another worker takes the pair over. Only an unreachable
          // store is asked again: any other fault of it would fail the same way for the whole lease.
          const run = { worker, startedAt, error: recorded, retryAt }
          // Kept on the run's record: a manual sync is not let in before it either (`ManualSync.ts`).
          const recordedRun = Option.isSome(portalRetryAt) ? { ...run, portalRetryAt: portalRetryAt.value } : run
          yield* store.recordFailure(integration, recordedRun).pipe(
            Effect.retry(untilTheDatabaseAnswers),
            Effect.catchCause((cause) => Effect.logError("could not record a failed sync run", cause))
          )
          return { _tag: "Failed", integrationId: integration.id, error: recorded, retryAt } as const
        })

        const claimDue = (worker: string, limit: number) => store.claimDue(worker, limit, lease)

        const keepClaims = (worker: string, pairs: () => ReadonlyArray<Pair>) =>
          Effect.forever(
            Effect.sleep(renewEvery).pipe(
              Effect.andThen(
                Effect.suspend(() => {
                  // Holding nothing, an idle worker renews nothing, and makes no span doing so.
                  const held = pairs()
                  return held.length === 0
                    ? Effect.void
                    : store.renewClaims(
                        worker,
                        held.map((pair) => pair.id),
                        lease
                      )
                })
              ),
              Effect.catchCause((cause) => Effect.logWarning("could not renew the scheduler's leases", cause))
            )
          )

        const releaseClaims = (worker: string, pairs: ReadonlyArray<Pair>) =>
          store.releaseClaims(
            worker,
            pairs.map((pair) => pair.id)
          )

        return SyncEngine.of({ runPair, claimDue, releaseClaims, keepClaims })
      })
    )

  static readonly layer = SyncEngine.layerWith({ deadline: defaultDeadline })
}
