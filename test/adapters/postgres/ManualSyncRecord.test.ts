/**
 * "Sync now" reads what the PostgreSQL stores recorded: a failed run's portal time, as
 * `PgPairStore.recordFailure` writes it and `PgDirectoryStore.recentRuns` reads it back, holds
 * a manual sync off until then; and a pause then a resume leave the pair's planned next sync in
 * `integrations`, so the scheduler's claim does not take it early.
 */
import { assert, layer } from "@effect/vitest"
import { DateTime, Duration, Effect, Layer, Option } from "effect"
import * as PgDirectoryStore from "../../../adapters/postgres/PgDirectoryStore.ts"
import * as PgOrganizations from "../../../adapters/postgres/PgOrganizations.ts"
import * as PgPairStore from "../../../adapters/postgres/PgPairStore.ts"
import { DirectoryStore } from "../../../core/receivables/ports/DirectoryStore.ts"
import { PairStore } from "../../../core/receivables/ports/PairStore.ts"
import { manualSyncNotBefore } from "../../../core/receivables/services/ManualSync.ts"
import { Organizations } from "../../../core/shared/ports/Organizations.ts"
import * as TestDatabase from "../../support/TestDatabase.ts"

const TestLayer = Layer.mergeAll(PgDirectoryStore.layer, PgOrganizations.layer, PgPairStore.layer).pipe(
  Layer.provideMerge(TestDatabase.layer)
)

/** A new pair, due `dueIn` from now. */
const newPair = (name: string, dueIn: Duration.Duration) =>
  Effect.gen(function* () {
    const directory = yield* DirectoryStore
    const org = yield* (yield* Organizations).create(name)
    const vendor = yield* directory.insertVendor(org.id, "Acme")
    const debtor = yield* directory.insertDebtor("Globex")
    const created = yield* directory.insertIntegration({
      org: org.id,
      vendor: vendor.id,
      debtor: debtor.id,
      connector: "simulator",
      config: {},
      interval: Duration.hours(1),
      deadline: null,
      nextSyncAt: DateTime.addDuration(yield* DateTime.now, dueIn)
    })
    return Option.getOrThrow(created)
  })

layer(TestLayer, { timeout: 60_000, excludeTestServices: true })("manual syncs over PostgreSQL", (it) => {
  it.effect("a failed run keeps its portal's time, and a manual sync waits for it", () =>
    Effect.gen(function* () {
      const pairs = yield* PairStore
      const record = yield* newPair("Retry-After", Duration.zero)
      const now = yield* DateTime.now
      const portalRetryAt = DateTime.addDuration(now, Duration.hours(1))
      yield* pairs.recordFailure(yield* pairs.get(record.id), {
        worker: "w",
        startedAt: now,
        error: "too many requests (429)",
        retryAt: portalRetryAt,
        portalRetryAt
      })
      const [last] = yield* (yield* DirectoryStore).recentRuns(record.orgId, record.id, 1)
      assert.strictEqual(DateTime.toEpochMillis(last!.portalRetryAt!), DateTime.toEpochMillis(portalRetryAt))
      const wait = manualSyncNotBefore(last, DateTime.addDuration(now, Duration.minutes(5)), Duration.minutes(1))
      assert.deepStrictEqual(wait, { until: last!.portalRetryAt!, reason: "portal" })
    })
  )

  it.effect("pausing and resuming a pair keeps its planned next sync, and it is not claimed before then", () =>
    Effect.gen(function* () {
      const directory = yield* DirectoryStore
      const record = yield* newPair("Paused", Duration.minutes(30))
      for (let i = 0; i < 8; i++) {
        yield* directory.setPaused(record.id, true, yield* DateTime.now)
        const resumed = Option.getOrThrow(yield* directory.setPaused(record.id, false, yield* DateTime.now))
        assert.strictEqual(DateTime.toEpochMillis(resumed.nextSyncAt!), DateTime.toEpochMillis(record.nextSyncAt!))
      }
      const claimed = yield* (yield* PairStore).claimDue("w", 1_000, Duration.minutes(10))
      assert.notInclude(
        claimed.map((pair) => pair.id),
        record.id
      )
    })
  )
})
