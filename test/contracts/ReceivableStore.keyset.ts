/**
 * The `ReceivableStore` contract's laws of keyset paging (`startingAfter`) and of the safe
 * watermark (`nextVerifiedSince`), run by `ReceivableStore.contract.ts` on every store. Keyset
 * pages are held to slices of the model's ordered list; the watermark to its rule, with in-flight
 * marks set relative to the store's own clock (the real one: the suite runs without test services).
 */
import { randomBytes, randomUUID } from "node:crypto"
import { assert } from "@effect/vitest"
import { DateTime, Effect, Option } from "effect"
import fc from "fast-check"
import type { SeedPair } from "../../core/receivables/memory/ReceivableStore.ts"
import { ReceivableStore, StartingAfterNotFound } from "../../core/receivables/ports/ReceivableStore.ts"
import type { DebtorId, OrgId, PairId, ReceivableId, VendorId } from "../../core/shared/domain/Ids.ts"
import { arbitraryState } from "../support/arbitraries.ts"
import { filterOf, filterPlan, inListOrder, modelList } from "./ReceivableStore.model.ts"
import { forAll, list, ReceivableSeed } from "./ReceivableStore.seed.ts"

const ids = (items: ReadonlyArray<{ readonly id: string }>) => items.map((item) => item.id)
const plain = { history: Option.none(), metadata: false } as const

export const keysetSliceLaw = forAll(
  fc.record({
    plan: filterPlan,
    cursor: fc.nat(),
    matching: fc.boolean(),
    offset: fc.integer({ min: 0, max: 2 }),
    limit: fc.integer({ min: 1, max: 5 })
  }),
  (world, { plan, cursor, matching, offset, limit }) =>
    Effect.gen(function* () {
      const { org, filter, asked } = filterOf(world, plan)
      const matches = modelList(world, org, filter)
      // One of the matches half of the time, else any receivable of the organization: the filter
      // may no longer keep the item a client pages after.
      const candidates = matching && matches.length > 0 ? matches : world.receivables.filter((r) => r.orgId === org)
      if (candidates.length === 0) return
      const after = candidates[cursor % candidates.length]!
      const following = matches.filter((r) => inListOrder(r, after) > 0)
      const page = yield* list(asked.org, {
        ...plain,
        filter: asked.filter,
        window: { offset, limit },
        startingAfter: after.id
      })
      assert.deepStrictEqual(ids(page.items), ids(following.slice(offset, offset + limit)))
      assert.strictEqual(page.followingCount, following.length)
      assert.strictEqual(page.totalCount, matches.length)
      // A later chunk of a page: the same items, counted only as far as tells whether more follow.
      const store = yield* ReceivableStore
      const chunk = yield* Effect.orDie(
        store.continuePage(asked.org, {
          ...plain,
          filter: asked.filter,
          window: { offset, limit },
          startingAfter: after.id
        })
      )
      assert.deepStrictEqual(chunk.items, page.items)
      assert.strictEqual(chunk.followingCount, Math.min(following.length, offset + limit + 1))
    })
)

export const keysetWalkLaw = forAll(
  fc.record({ plan: filterPlan, limit: fc.integer({ min: 1, max: 4 }) }),
  (world, { plan, limit }) =>
    Effect.gen(function* () {
      const { org, filter, asked } = filterOf(world, plan)
      const expected = ids(modelList(world, org, filter))
      const seen: Array<string> = []
      let after: ReceivableId | undefined
      for (;;) {
        const page = yield* list(asked.org, {
          ...plain,
          filter: asked.filter,
          window: { offset: 0, limit },
          startingAfter: after
        })
        assert.strictEqual(page.totalCount, expected.length)
        assert.strictEqual(page.followingCount, expected.length - seen.length)
        seen.push(...ids(page.items))
        if (page.followingCount <= limit) break
        after = page.items.at(-1)!.id
      }
      assert.deepStrictEqual(seen, expected)
    })
)

export const unknownCursorLaw = forAll(fc.constant(null), (world) =>
  Effect.gen(function* () {
    const store = yield* ReceivableStore
    const [own, other] = world.orgs
    const unknown = `rcv_${randomBytes(16).toString("hex")}` as ReceivableId
    const theirs = world.receivables.filter((r) => r.orgId === other).map((r) => r.id)
    for (const id of [unknown, ...theirs]) {
      // A page instead of the refusal fails the test.
      const refused = yield* Effect.orDie(
        Effect.flip(
          store.listReceivables(own, { ...plain, filter: {}, window: { offset: 0, limit: 5 }, startingAfter: id })
        )
      )
      assert.instanceOf(refused, StartingAfterNotFound)
      assert.strictEqual(refused.id, id)
      const chunkRefused = yield* Effect.orDie(
        Effect.flip(
          store.continuePage(own, { ...plain, filter: {}, window: { offset: 0, limit: 5 }, startingAfter: id })
        )
      )
      assert.deepStrictEqual(chunkRefused, refused)
    }
  })
)

/** An organization with one receivable and a pair for each in-flight mark (null: none), seeded. */
const organizationWithMarks = (marks: ReadonlyArray<DateTime.Utc | null>) =>
  Effect.gen(function* () {
    const orgId = randomUUID() as OrgId
    const now = yield* DateTime.now
    const vendor = { id: randomUUID() as VendorId, orgId, name: "Acme", createdAt: now }
    const debtors = marks.map(() => ({ id: randomUUID() as DebtorId, name: "Globex", createdAt: now }))
    const pairs = marks.map(
      (syncStartedAt, index): SeedPair => ({
        id: randomUUID() as PairId,
        orgId,
        vendorId: vendor.id,
        debtorId: debtors[index]!.id,
        connector: "simulator",
        nextSyncAt: null,
        paused: false,
        syncStartedAt
      })
    )
    const [state] = fc.sample(arbitraryState, { numRuns: 1, seed: 3 })
    const receivable = {
      ...state!,
      id: `rcv_${randomBytes(16).toString("hex")}` as ReceivableId,
      orgId,
      pairId: pairs[0]!.id,
      detectedAt: now,
      updatedAt: now
    }
    yield* (yield* ReceivableSeed).seed({ vendors: [vendor], debtors, pairs, receivables: [receivable] })
    return { orgId, receivable }
  })

export const watermarkLaw = Effect.gen(function* () {
  const now = yield* DateTime.now
  const ago = (minutes: number) => DateTime.subtract(now, { minutes })
  // Fresh marks (2 and 9 minutes old), a stale one (11 minutes: a crashed worker's), none.
  const marked = yield* organizationWithMarks([ago(2), null, ago(9), ago(11)])
  const unmarked = yield* organizationWithMarks([null, ago(11)])
  // Another organization's fresh mark holds back only its own watermark.
  yield* organizationWithMarks([ago(5)])

  const page = yield* list(marked.orgId, { ...plain, filter: {}, window: { offset: 0, limit: 5 } })
  assert.strictEqual(DateTime.formatIso(page.nextVerifiedSince), DateTime.formatIso(ago(9)))
  // The same whatever the page: filters, a cursor and a window past the end do not move it.
  const filtered = yield* list(marked.orgId, {
    ...plain,
    filter: { status: "SOLD", updatedSince: now },
    window: { offset: 10, limit: 1 },
    startingAfter: marked.receivable.id
  })
  assert.strictEqual(DateTime.formatIso(filtered.nextVerifiedSince), DateTime.formatIso(ago(9)))

  // Without a fresh mark, the time of the read, to the millisecond.
  const before = yield* DateTime.now
  const read = yield* list(unmarked.orgId, { ...plain, filter: {}, window: { offset: 0, limit: 5 } })
  const after = yield* DateTime.now
  assert.isTrue(
    DateTime.isGreaterThanOrEqualTo(read.nextVerifiedSince, before) &&
      DateTime.isLessThanOrEqualTo(read.nextVerifiedSince, after),
    `${DateTime.formatIso(read.nextVerifiedSince)} is not within [${DateTime.formatIso(before)}, ${DateTime.formatIso(after)}]`
  )
})
