/**
 * The memory twins as one storage: what one twin writes, the others read, as the PostgreSQL
 * stores do over one database. Each law crosses twins: the directory's pair synced through the
 * pair store, read back by the read path, the feed and the directory.
 */
import { assert, describe, it } from "@effect/vitest"
import { DateTime, Duration, Effect, Option, Schema } from "effect"
import { TestClock } from "effect/testing"
import * as MemoryStorage from "../../../core/memory/MemoryStorage.ts"
import { ReceivableState } from "../../../core/receivables/domain/Resources.ts"
import { DirectoryStore } from "../../../core/receivables/ports/DirectoryStore.ts"
import { EventFeed } from "../../../core/receivables/ports/EventFeed.ts"
import { PairStore } from "../../../core/receivables/ports/PairStore.ts"
import { ReceivableStore } from "../../../core/receivables/ports/ReceivableStore.ts"
import type { OrgId, ReceivableId } from "../../../core/shared/domain/Ids.ts"
import { Organizations } from "../../../core/shared/ports/Organizations.ts"

const state = Schema.decodeUnknownSync(ReceivableState)({
  vendorReceivableId: "INV-1",
  amountCents: 12_500,
  currency: "EUR",
  receivableDate: "2026-11-01",
  dueDate: null,
  status: "PENDING",
  portalStatus: "Submitted",
  poNumber: null,
  metadata: {}
})
const id = "rcv_0000000000000000000000000000000a" as ReceivableId
const everything = (org: OrgId, updatedSince?: DateTime.Utc) =>
  Effect.flatMap(Effect.service(ReceivableStore), (store) =>
    store.listReceivables(org, {
      filter: { updatedSince },
      window: { offset: 0, limit: 100 },
      history: Option.none(),
      metadata: false
    })
  ).pipe(Effect.orDie)

/** An organization's pair, stored through the directory, due now. */
const directoryPair = Effect.gen(function* () {
  const org = yield* (yield* Organizations).create("Shared state")
  const directory = yield* DirectoryStore
  const vendor = yield* directory.insertVendor(org.id, "Vendor")
  const debtor = yield* directory.insertDebtor("Debtor")
  const stored = yield* directory.insertIntegration({
    org: org.id,
    vendor: vendor.id,
    debtor: debtor.id,
    connector: "scripted",
    config: { pages: 1 },
    interval: Duration.hours(1),
    deadline: null,
    nextSyncAt: yield* DateTime.now
  })
  return { org: org.id, pair: Option.getOrThrow(stored) }
})

describe("the memory twins over one state", () => {
  it.effect("a sync in flight holds the read path's watermark before its rows, which appear all at once", () =>
    Effect.gen(function* () {
      const { org, pair } = yield* directoryPair
      const integration = yield* (yield* PairStore).get(pair.id)
      assert.deepStrictEqual(integration.config, { pages: 1 })
      const watermark = yield* Effect.scoped(
        Effect.gen(function* () {
          const session = yield* (yield* PairStore).session(integration, "worker", yield* DateTime.now)
          yield* session.writeChunk({
            inserts: [{ id, documentKey: "doc-1", state, detectedAt: session.at }],
            updates: [],
            events: [{ type: "receivable.created", receivableId: id, createdAt: session.at, data: { id } }]
          })
          // A reader while the sync runs: nothing yet, and a watermark no later than the sync's rows.
          yield* TestClock.adjust("1 minute")
          const during = yield* everything(org)
          assert.strictEqual(during.totalCount, 0)
          assert.isTrue(DateTime.isLessThanOrEqualTo(during.nextVerifiedSince, session.at))
          yield* session.finish({
            counts: { fetched: 1, created: 1, updated: 0, unchanged: 0, quarantined: 0 },
            quarantine: [],
            nextSyncAt: DateTime.add(yield* DateTime.now, { hours: 1 })
          })
          return during.nextVerifiedSince
        })
      )
      // Polling from the watermark seen during the sync finds its rows.
      const after = yield* everything(org, watermark)
      assert.deepStrictEqual(
        after.items.map((r) => [r.id, r.vendor.name, r.debtor.name]),
        [[id, "Vendor", "Debtor"]]
      )
      const feed = yield* (yield* EventFeed).after(org, { limit: 10 })
      assert.deepStrictEqual(
        feed.events.map((event) => [event.sequence, event.type]),
        [[1, "receivable.created"]]
      )
      const [run] = yield* (yield* DirectoryStore).recentRuns(org, pair.id, 10)
      assert.deepInclude(run, { outcome: "succeeded", created: 1, error: null })
      const [listed] = yield* (yield* ReceivableStore).listIntegrations(org, {})
      assert.deepInclude(listed, { state: "active" })
      assert.deepInclude(listed!.lastSync, { outcome: "succeeded", created: 1 })
    }).pipe(Effect.provide(MemoryStorage.layer))
  )

  it.effect("a sync that ends without finishing leaves nothing, and no mark holding the watermark back", () =>
    Effect.gen(function* () {
      const { org, pair } = yield* directoryPair
      const integration = yield* (yield* PairStore).get(pair.id)
      const failed = yield* Effect.exit(
        Effect.scoped(
          Effect.gen(function* () {
            const session = yield* (yield* PairStore).session(integration, "worker", yield* DateTime.now)
            yield* session.writeChunk({
              inserts: [{ id, documentKey: "doc-1", state, detectedAt: session.at }],
              updates: [],
              events: []
            })
            return yield* Effect.fail("the portal hung up")
          })
        )
      )
      assert.isTrue(failed._tag === "Failure")
      yield* TestClock.adjust("1 minute")
      const page = yield* everything(org)
      assert.strictEqual(page.totalCount, 0)
      assert.strictEqual(DateTime.toEpochMillis(page.nextVerifiedSince), DateTime.toEpochMillis(yield* DateTime.now))
      assert.strictEqual((yield* (yield* EventFeed).after(org, { limit: 10 })).latestSequence, 0)
    }).pipe(Effect.provide(MemoryStorage.layer))
  )

  it.effect("a pair the directory pauses is claimed by no worker until it resumes", () =>
    Effect.gen(function* () {
      const { pair } = yield* directoryPair
      const directory = yield* DirectoryStore
      const pairs = yield* PairStore
      yield* directory.setPaused(pair.id, true, yield* DateTime.now)
      assert.deepStrictEqual(yield* pairs.claimDue("worker", 10, Duration.minutes(10)), [])
      yield* directory.setPaused(pair.id, false, yield* DateTime.now)
      const claimed = yield* pairs.claimDue("worker", 10, Duration.minutes(10))
      assert.deepStrictEqual(
        claimed.map((integration) => integration.id),
        [pair.id]
      )
    }).pipe(Effect.provide(MemoryStorage.layer))
  )
})
