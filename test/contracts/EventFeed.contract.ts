/**
 * The contract of the `EventFeed` port, run on the memory twin and on PostgreSQL: an
 * organization's events take sequence numbers in the order their pair sessions finish, whatever
 * order they started and wrote in; `after` returns exactly the events after a position; a session
 * that does not finish leaves no event and takes no number; retention tells a cursor it fell behind.
 */
import { assert, layer as withLayer } from "@effect/vitest"
import { DateTime, Effect, Exit, type Layer, Option, Scope } from "effect"
import fc from "fast-check"
import type { StoredEvent } from "../../core/receivables/domain/Events.ts"
import { EventFeed } from "../../core/receivables/ports/EventFeed.ts"
import { type Pair, type PairSession, PairStore } from "../../core/receivables/ports/PairStore.ts"
import { arbitraryState } from "../support/arbitraries.ts"
import { eventTag, noCounts, PairStoreHarness, writesFor } from "./PairStore.harness.ts"

const finishing = (at: DateTime.Utc) => ({
  counts: noCounts,
  quarantine: [],
  nextSyncAt: DateTime.add(at, { hours: 1 })
})

/** A session opened in a scope of its own, so that several can be open at once and end in any order. */
const openSession = (pair: Pair) =>
  Effect.gen(function* () {
    const scope = yield* Scope.make()
    const session: PairSession = yield* (yield* PairStore)
      .session(pair, "contract", yield* DateTime.now)
      .pipe(Scope.provide(scope))
    return { session, scope }
  })

/** Writes `count` new receivables with their events; answers the events' tags in order. */
const writeNew = (session: PairSession, count: number, prefix: string) =>
  Effect.gen(function* () {
    const states = fc.sample(arbitraryState, count)
    const writes = writesFor(
      [],
      states.map((state, i) => [`${prefix}-${i}`, state] as const),
      session.at
    )
    yield* session.writeChunk(writes)
    return writes.events.map(eventTag)
  })

const allAfter = (pair: Pair, after: number) =>
  Effect.gen(function* () {
    const feed = yield* EventFeed
    const events: Array<StoredEvent> = []
    let position = after
    for (;;) {
      const page = yield* feed.after(pair.orgId, { after: position, limit: 7 })
      events.push(...page.events)
      if (!page.hasMore) return events
      position = page.events.at(-1)!.sequence
    }
  })

export const describeEventFeedContract = (
  name: string,
  layer: Layer.Layer<EventFeed | PairStore | PairStoreHarness, unknown>
) =>
  withLayer(layer, { excludeTestServices: true, timeout: 120_000 })(`EventFeed contract: ${name}`, (it) => {
    it.effect("sequences follow the order sessions finish in, not the order they began or wrote in", () =>
      Effect.gen(function* () {
        const harness = yield* PairStoreHarness
        const feed = yield* EventFeed
        const samples = fc.sample(
          fc.record({
            sizes: fc.array(fc.integer({ min: 0, max: 4 }), { minLength: 2, maxLength: 4 }),
            order: fc.func(fc.integer())
          }),
          8
        )
        for (const [round, { sizes, order }] of samples.entries()) {
          const first = yield* harness.addPair({ dueInSeconds: 3600 })
          const pairs = [first]
          for (let i = 1; i < sizes.length; i++) {
            pairs.push(yield* harness.addPair({ dueInSeconds: 3600, sameOrganizationAs: first }))
          }
          // All begin, then write in turn, then finish in a generated order.
          const open = yield* Effect.forEach(pairs, openSession)
          const tags = yield* Effect.forEach(open, ({ session }, i) => writeNew(session, sizes[i]!, `r${round}p${i}`))
          const finishOrder = open.map((_, i) => i).sort((a, b) => order(a) - order(b) || a - b)
          for (const i of finishOrder) {
            yield* open[i]!.session.finish(finishing(open[i]!.session.at))
            yield* Scope.close(open[i]!.scope, Exit.void)
          }
          const events = yield* allAfter(first, 0)
          const expected = finishOrder.flatMap((i) => tags[i]!)
          assert.deepStrictEqual(events.map(eventTag), expected)
          assert.deepStrictEqual(
            events.map((event) => event.sequence),
            expected.map((_, i) => i + 1)
          )
          const page = yield* feed.after(first.orgId, { after: 0, limit: 500 })
          assert.strictEqual(page.latestSequence, expected.length)
        }
      })
    )

    it.effect("after a position comes exactly what follows it, of the types asked for, page by page", () =>
      Effect.gen(function* () {
        const harness = yield* PairStoreHarness
        const store = yield* PairStore
        const feed = yield* EventFeed
        const pair = yield* harness.addPair({ dueInSeconds: 3600 })
        // Two syncs: creations, then changes to some of them.
        for (const step of [0, 1]) {
          yield* Effect.scoped(
            Effect.gen(function* () {
              const session = yield* store.session(pair, "contract", yield* DateTime.now)
              const keys = Array.from({ length: 9 }, (_, i) => `k${i}`).filter((_, i) => step === 0 || i % 2 === 0)
              const current = yield* session.receivablesByKeys(keys)
              const states = fc.sample(arbitraryState, keys.length)
              yield* session.writeChunk(
                writesFor(
                  current,
                  keys.map((key, i) => [key, states[i]!] as const),
                  session.at
                )
              )
              yield* session.finish(finishing(session.at))
            })
          )
        }
        const all = yield* allAfter(pair, 0)
        for (const after of [0, 1, 5, all.length - 1, all.length]) {
          assert.deepStrictEqual(yield* allAfter(pair, after), all.slice(after))
        }
        const updates = yield* feed.after(pair.orgId, { after: 0, types: ["receivable.updated"], limit: 500 })
        assert.deepStrictEqual(
          updates.events,
          all.filter((event) => event.type === "receivable.updated")
        )
        assert.isFalse(updates.hasMore)
        // One event by its place; never another organization's.
        const other = yield* harness.addPair({ dueInSeconds: 3600 })
        const sample = all[3]!
        assert.deepStrictEqual(yield* feed.find(pair.orgId, sample), Option.some(sample))
        assert.isTrue(Option.isNone(yield* feed.find(other.orgId, sample)))
        assert.deepStrictEqual((yield* feed.after(other.orgId, { after: 0, limit: 10 })).events, [])
        // A position past the newest was never given.
        const ahead = yield* Effect.flip(feed.after(pair.orgId, { after: all.length + 1, limit: 10 }))
        assert.strictEqual(ahead._tag, "EventCursorAhead")
      })
    )

    it.effect("a session that does not finish leaves no event and takes no sequence number", () =>
      Effect.gen(function* () {
        const harness = yield* PairStoreHarness
        const feed = yield* EventFeed
        const pair = yield* harness.addPair({ dueInSeconds: 3600 })
        const abandoned = yield* openSession(pair)
        yield* writeNew(abandoned.session, 3, "gone")
        yield* Scope.close(abandoned.scope, Exit.fail("the portal failed"))
        const kept = yield* openSession(pair)
        const tags = yield* writeNew(kept.session, 2, "kept")
        yield* kept.session.finish(finishing(kept.session.at))
        yield* Scope.close(kept.scope, Exit.void)
        const events = yield* allAfter(pair, 0)
        assert.deepStrictEqual(events.map(eventTag), tags)
        assert.deepStrictEqual(
          events.map((event) => event.sequence),
          [1, 2]
        )
        assert.strictEqual((yield* feed.after(pair.orgId, { after: 0, limit: 1 })).hasMore, true)
      })
    )

    it.effect("retention removes old events, and a cursor into them is told it fell behind", () =>
      Effect.gen(function* () {
        const harness = yield* PairStoreHarness
        const feed = yield* EventFeed
        const pair = yield* harness.addPair({ dueInSeconds: 3600 })
        const session = yield* openSession(pair)
        yield* writeNew(session.session, 3, "old")
        yield* session.session.finish(finishing(session.session.at))
        yield* Scope.close(session.scope, Exit.void)
        const removed = yield* feed.prune(DateTime.add(yield* DateTime.now, { minutes: 1 }))
        assert.isAtLeast(removed, 3)
        const expired = yield* Effect.flip(feed.after(pair.orgId, { after: 0, limit: 10 }))
        assert.deepStrictEqual(expired._tag === "EventCursorExpired" && [expired.reason, expired.through], [
          "retention",
          3
        ])
        // Without a position, a reader starts from the oldest kept: nothing yet, and where the feed is.
        const start = yield* feed.after(pair.orgId, { limit: 10 })
        assert.deepStrictEqual([start.events.length, start.latestSequence], [0, 3])
        // From the newest position on, the feed goes on.
        const next = yield* openSession(pair)
        const tags = yield* writeNew(next.session, 1, "new")
        yield* next.session.finish(finishing(next.session.at))
        yield* Scope.close(next.scope, Exit.void)
        const page = yield* feed.after(pair.orgId, { after: 3, limit: 10 })
        assert.deepStrictEqual(page.events.map(eventTag), tags)
        assert.strictEqual(page.events[0]!.sequence, 4)
        assert.deepStrictEqual((yield* feed.after(pair.orgId, { limit: 10 })).events.map(eventTag), tags)
      })
    )
  })
