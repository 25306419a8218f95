/**
 * The read service's rules on the in-memory store, with virtual time: the default 24-hour
 * `verified_since` window measured from the clock, `all` and dates, `has_more` by page and after
 * a cursor, the watermark as the clock moves, expansions, and "not found" for ids that are
 * malformed, unknown or another organization's.
 */
import { randomBytes, randomUUID } from "node:crypto"
import { assert, describe, it } from "@effect/vitest"
import { Context, DateTime, Effect, Layer, Stream } from "effect"
import { TestClock } from "effect/testing"
import fc from "fast-check"
import { states as memoryStates } from "../../../core/memory/MemoryStorage.ts"
import * as AnswerSize from "../../../core/receivables/domain/AnswerSize.ts"
import * as MemoryReceivableStore from "../../../core/receivables/memory/ReceivableStore.ts"
import { ReceivableStore } from "../../../core/receivables/ports/ReceivableStore.ts"
import { collect } from "../../../core/receivables/services/PageParts.ts"
import { type ListReceivablesQuery, Receivables } from "../../../core/receivables/services/Receivables.ts"
import type { DebtorId, OrgId, PairId, ReceivableId, VendorId } from "../../../core/shared/domain/Ids.ts"
import { arbitraryState } from "../../support/arbitraries.ts"

const now = DateTime.makeUnsafe("2026-06-15T12:00:00Z")
const hoursAgo = (hours: number) => DateTime.subtract(now, { hours })
const org = randomUUID() as OrgId
const other = randomUUID() as OrgId
const defaults: ListReceivablesQuery = { historyLimit: 10, page: 1, limit: 100 }

/**
 * A fresh service over a fresh store, the clock at `now`, with receivables updated so many hours
 * ago (detected in that order) on one pair, in flight since `syncStartedAt` if given.
 */
const setup = (
  updatedHoursAgo: ReadonlyArray<number>,
  owner: OrgId = org,
  syncStartedAt: DateTime.Utc | null = null,
  sizes: { readonly maxAnswerBytes?: number; readonly metadataBytes?: ReadonlyArray<number> } = {}
) =>
  Effect.gen(function* () {
    yield* TestClock.setTime(DateTime.toEpochMillis(now))
    const service =
      sizes.maxAnswerBytes === undefined
        ? Receivables.layer
        : Receivables.layerWith({ maxAnswerBytes: sizes.maxAnswerBytes })
    const storeReads = { count: 0 }
    // The memory store, its page reads counted.
    const counted = Layer.effect(
      ReceivableStore,
      Effect.map(Effect.service(ReceivableStore), (store) =>
        ReceivableStore.of({
          ...store,
          listReceivables: (org, request) =>
            Effect.suspend(() => {
              storeReads.count++
              return store.listReceivables(org, request)
            }),
          continuePage: (org, request) =>
            Effect.suspend(() => {
              storeReads.count++
              return store.continuePage(org, request)
            })
        })
      )
    )
    const context = yield* Layer.build(
      service.pipe(
        Layer.provide(counted),
        Layer.provideMerge(MemoryReceivableStore.layerMemory),
        Layer.provide(memoryStates)
      )
    )
    const vendor = { id: randomUUID() as VendorId, orgId: owner, name: "Acme", createdAt: hoursAgo(1000) }
    const debtor = { id: randomUUID() as DebtorId, name: "Globex", createdAt: hoursAgo(1000) }
    const pair = {
      id: randomUUID() as PairId,
      orgId: owner,
      vendorId: vendor.id,
      debtorId: debtor.id,
      connector: "simulator",
      nextSyncAt: now,
      paused: false,
      syncStartedAt
    }
    const [state] = fc.sample(arbitraryState, { numRuns: 1, seed: 7 })
    const receivables = updatedHoursAgo.map((hours, index) => ({
      ...state!,
      id: `rcv_${randomBytes(16).toString("hex")}` as ReceivableId,
      orgId: owner,
      pairId: pair.id,
      detectedAt: hoursAgo(1000 - index),
      updatedAt: hoursAgo(hours),
      ...(sizes.metadataBytes === undefined ? {} : { metadata: { note: "x".repeat(sizes.metadataBytes[index] ?? 0) } })
    }))
    const history = receivables.map((r) => ({
      orgId: owner,
      receivableId: r.id,
      changedAt: r.updatedAt,
      changes: { status: { from: "PENDING", to: r.status } }
    }))
    yield* Context.get(context, MemoryReceivableStore.MemoryReceivables).seed({
      vendors: [vendor],
      debtors: [debtor],
      pairs: [pair],
      receivables,
      history
    })
    return { service: Context.get(context, Receivables), receivables, vendor, debtor, pair, storeReads }
  }).pipe(Effect.scoped)

const listedIds = (list: { readonly items: ReadonlyArray<{ readonly id: string }> }) => list.items.map((r) => r.id)

describe("Receivables", () => {
  it.effect("by default, the list keeps what was updated in the 24 hours before now, measured by the clock", () =>
    Effect.gen(function* () {
      const { service, receivables } = yield* setup([25, 24, 1])
      assert.deepStrictEqual(listedIds(yield* service.list(org, defaults)), [receivables[1]!.id, receivables[2]!.id])
      yield* TestClock.adjust("1 hour")
      assert.deepStrictEqual(listedIds(yield* service.list(org, defaults)), [receivables[2]!.id])
    })
  )

  it.effect(
    "`all` keeps everything, a date keeps from its midnight UTC, an unreadable value is the default window",
    () =>
      Effect.gen(function* () {
        const { service, receivables } = yield* setup([100, 30, 1])
        const ids = (verifiedSince: string) => Effect.map(service.list(org, { ...defaults, verifiedSince }), listedIds)
        assert.deepStrictEqual(
          yield* ids("all"),
          receivables.map((r) => r.id)
        )
        // 30 hours before noon on the 15th is 06:00 on the 14th.
        assert.deepStrictEqual(yield* ids("2026-06-14"), [receivables[1]!.id, receivables[2]!.id])
        assert.deepStrictEqual(yield* ids("2026-06-14T06:00:00.001Z"), [receivables[2]!.id])
        assert.deepStrictEqual(yield* ids("yesterday"), [receivables[2]!.id])
      })
  )

  it.effect("has_more is true exactly when items follow the page, and the total counts them all", () =>
    Effect.gen(function* () {
      const { service } = yield* setup(Array.from({ length: 7 }, () => 1))
      for (const [page, limit] of fc.sample(
        fc.tuple(fc.integer({ min: 1, max: 9 }), fc.integer({ min: 1, max: 8 })),
        40
      )) {
        const list = yield* service.list(org, { ...defaults, page, limit })
        assert.strictEqual(list.totalCount, 7)
        assert.strictEqual(list.hasMore, page * limit < 7, `page ${page}, limit ${limit}`)
        assert.strictEqual(list.items.length, Math.max(0, Math.min(limit, 7 - (page - 1) * limit)))
      }
    })
  )

  it.effect("after a cursor, the page is the first after it and has_more counts only what follows it", () =>
    Effect.gen(function* () {
      const { service, receivables } = yield* setup(Array.from({ length: 7 }, () => 1))
      for (const [at, limit] of fc.sample(fc.tuple(fc.nat({ max: 6 }), fc.integer({ min: 1, max: 8 })), 40)) {
        const list = yield* service.list(org, { ...defaults, limit, startingAfter: receivables[at]!.id })
        const following = receivables.slice(at + 1)
        assert.deepStrictEqual(listedIds(list), listedIds({ items: following.slice(0, limit) }))
        assert.strictEqual(list.totalCount, 7)
        assert.strictEqual(list.hasMore, following.length > limit, `after ${at}, limit ${limit}`)
      }
    })
  )

  it.effect(
    "a cursor with a page other than 1 is refused, and one that names no receivable of the organization too",
    () =>
      Effect.gen(function* () {
        const { service, receivables } = yield* setup([1, 1])
        const startingAfter = receivables[0]!.id
        assert.deepInclude(yield* Effect.flip(service.list(org, { ...defaults, page: 2, startingAfter })), {
          _tag: "PageWithStartingAfter",
          page: 2
        })
        assert.lengthOf((yield* service.list(org, { ...defaults, page: 1, startingAfter })).items, 1)
        assert.deepInclude(yield* Effect.flip(service.list(other, { ...defaults, startingAfter })), {
          _tag: "StartingAfterNotFound",
          id: startingAfter
        })
      })
  )

  it.effect("next_verified_since is now, or a sync's in-flight mark until it is ten minutes old", () =>
    Effect.gen(function* () {
      const quiet = yield* setup([1])
      assert.isTrue(DateTime.Equivalence((yield* quiet.service.list(org, defaults)).nextVerifiedSince, now))
      const mark = DateTime.subtract(now, { minutes: 3 })
      const busy = yield* setup([1], org, mark)
      assert.isTrue(DateTime.Equivalence((yield* busy.service.list(org, defaults)).nextVerifiedSince, mark))
      yield* TestClock.adjust("7 minutes")
      assert.isTrue(DateTime.Equivalence((yield* busy.service.list(org, defaults)).nextVerifiedSince, mark))
      // Past the longest sync deadline the mark is a crashed worker's, and no longer holds it back.
      yield* TestClock.adjust("1 millis")
      const later = yield* DateTime.now
      assert.isTrue(DateTime.Equivalence((yield* busy.service.list(org, defaults)).nextVerifiedSince, later))
    })
  )

  it.effect("history and metadata come with list items only when expanded; history up to its limit", () =>
    Effect.gen(function* () {
      const { service } = yield* setup([1, 2])
      const plain = yield* service.list(org, defaults)
      assert.isTrue(plain.items.every((r) => r.history === undefined && r.metadata === undefined))
      const expanded = yield* service.list(org, { ...defaults, expand: ["history", "metadata"], historyLimit: 1 })
      assert.isTrue(expanded.items.every((r) => r.history?.length === 1 && r.metadata !== undefined))
      const none = yield* service.list(org, { ...defaults, expand: ["history"], historyLimit: 0 })
      assert.isTrue(none.items.every((r) => r.history?.length === 0 && r.metadata === undefined))
    })
  )

  it.effect(
    "get answers the organization's receivable with its history; otherwise ReceivableNotFound, naming the id",
    () =>
      Effect.gen(function* () {
        const { service, receivables } = yield* setup([1])
        const found = yield* service.get(org, receivables[0]!.id, 5)
        assert.strictEqual(found.id, receivables[0]!.id)
        assert.lengthOf(found.history ?? [], 1)
        for (const [asking, id] of [
          [org, "rcv_nope"],
          [org, `rcv_${"0".repeat(32)}`],
          [other, receivables[0]!.id]
        ] as const) {
          const refused = yield* Effect.flip(service.get(asking, id, 5))
          assert.deepInclude(refused, { _tag: "ReceivableNotFound", id })
        }
      })
  )

  it.effect(
    "an expanded page stops before passing the largest answer, and pages after its last item read every item once",
    () =>
      Effect.promise(() =>
        fc.assert(
          fc.asyncProperty(
            fc.array(fc.integer({ min: 0, max: 3_000 }), { maxLength: 120 }),
            fc.integer({ min: 1, max: 150 }),
            fc.integer({ min: 2_000, max: 20_000 }),
            (metadataBytes, limit, maxAnswerBytes) =>
              Effect.runPromise(
                Effect.gen(function* () {
                  const hours = metadataBytes.map(() => 1)
                  const { service, receivables } = yield* setup(hours, org, null, { maxAnswerBytes, metadataBytes })
                  const seen: Array<string> = []
                  let startingAfter: ReceivableId | undefined
                  for (let pages = 0; pages <= receivables.length + 1; pages++) {
                    const page = yield* service.list(org, {
                      ...defaults,
                      verifiedSince: "all",
                      expand: ["metadata"],
                      limit,
                      startingAfter
                    })
                    assert.isAtMost(page.items.length, limit)
                    const bytes = page.items.reduce((sum, item) => sum + AnswerSize.receivableBytes(item), 0)
                    if (page.items.length > 1) assert.isAtMost(bytes, maxAnswerBytes)
                    seen.push(...listedIds(page))
                    if (!page.hasMore) break
                    assert.isAbove(page.items.length, 0, "a page that says more follows is never empty")
                    startingAfter = page.items.at(-1)!.id
                  }
                  assert.deepStrictEqual(
                    seen,
                    receivables.map((r) => r.id)
                  )
                }).pipe(Effect.provide(TestClock.layer()))
              )
          ),
          { numRuns: 40 }
        )
      )
  )

  it.effect("an expanded page in parts reads the store only as its parts are pulled, and holds the whole page", () =>
    Effect.gen(function* () {
      const hours = Array.from({ length: 120 }, () => 1)
      const { service, storeReads } = yield* setup(hours, org, null, { metadataBytes: hours.map(() => 100) })
      const query = { ...defaults, verifiedSince: "all", expand: ["metadata" as const], limit: 110 }
      const page = yield* service.listInParts(org, query)
      assert.isFalse(page.complete)
      assert.strictEqual(storeReads.count, 1)
      // The first read's items are there already; each further part is one more read.
      yield* Stream.runDrain(Stream.take(page.parts, 2))
      assert.strictEqual(storeReads.count, 2)
      const whole = yield* service.list(org, query)
      const parts = yield* collect(yield* service.listInParts(org, query))
      assert.deepStrictEqual(listedIds(parts), listedIds(whole))
      assert.strictEqual(parts.hasMore, whole.hasMore)
      const short = yield* service.listInParts(org, { ...query, limit: 50 })
      assert.isTrue(short.complete)
    })
  )

  it.effect("vendors and debtors are the store's lists, filtered by the other party", () =>
    Effect.gen(function* () {
      const { service, vendor, debtor } = yield* setup([1])
      assert.deepStrictEqual(listedIds({ items: yield* service.vendors(org) }), [vendor.id])
      assert.deepStrictEqual(listedIds({ items: yield* service.vendors(org, debtor.id) }), [vendor.id])
      assert.deepStrictEqual(listedIds({ items: yield* service.debtors(org, vendor.id) }), [debtor.id])
      assert.deepStrictEqual(yield* service.debtors(other), [])
      const [listed] = yield* service.vendors(org)
      assert.isTrue(DateTime.Equivalence(listed!.estimatedNextUpdateAt!, now))
    })
  )

  it.effect("integrations are the store's list of the organization's pairs, filtered by either party", () =>
    Effect.gen(function* () {
      const { service, vendor, debtor, pair } = yield* setup([1])
      const [listed] = yield* service.integrations(org, { vendorId: vendor.id, debtorId: debtor.id })
      assert.deepInclude(listed, { id: pair.id, connector: "simulator", state: "active", lastSync: null })
      assert.deepStrictEqual(yield* service.integrations(other, {}), [])
      assert.deepStrictEqual(yield* service.integrations(org, { debtorId: randomUUID() as DebtorId }), [])
    })
  )
})
