/**
 * Two pollers beside concurrent syncs, on PostgreSQL: pairs of one organization sync at once,
 * with random sizes, failures part-way and commits out of the order they began in, while one
 * poller follows the events feed (`after=<last sequence seen>`) and another polls the list with
 * `verified_since=<the first page's next_verified_since>`, paging by keyset. After quiescence each
 * poller's copy equals a fresh full load; the feed poller saw no event twice, and the sequences it
 * saw strictly increased with none missing. And the feed answers no event before it is durable.
 */
import { assert, layer } from "@effect/vitest"
import { DateTime, Deferred, Effect, Fiber, Layer, Option, Random, Ref } from "effect"
import { SqlClient } from "effect/sql"
import fc from "fast-check"
import * as PgEventFeed from "../../../adapters/postgres/PgEventFeed.ts"
import * as PgPairStore from "../../../adapters/postgres/PgPairStore.ts"
import * as PgReceivableStore from "../../../adapters/postgres/PgReceivableStore.ts"
import type { Receivable } from "../../../core/receivables/domain/Resources.ts"
import { EventFeed } from "../../../core/receivables/ports/EventFeed.ts"
import { type Pair, PairStore } from "../../../core/receivables/ports/PairStore.ts"
import { ReceivableStore } from "../../../core/receivables/ports/ReceivableStore.ts"
import type { ReceivableId } from "../../../core/shared/domain/Ids.ts"
import { pageWindow } from "../../../core/shared/domain/Pagination.ts"
import { noCounts, writesFor } from "../../contracts/PairStore.harness.ts"
import { arbitraryState } from "../../support/arbitraries.ts"
import * as TestDatabase from "../../support/TestDatabase.ts"

const TestLayer = Layer.mergeAll(PgPairStore.layer, PgEventFeed.layer, PgReceivableStore.layer).pipe(
  Layer.provideMerge(TestDatabase.layer)
)

/** What a copy keeps of a receivable: every field a sync changes, and when it changed. */
const fingerprint = (r: typeof Receivable.Type) =>
  JSON.stringify([
    r.vendorReceivableId,
    r.amountCents,
    r.currency,
    r.receivableDate,
    r.dueDate,
    r.status,
    r.portalStatus,
    r.poNumber,
    DateTime.formatIso(r.updatedAt)
  ])

interface Plan {
  /** Per sync: its pair, how many documents, whether it fails before finishing. */
  readonly syncs: ReadonlyArray<{ readonly pair: number; readonly size: number; readonly fails: boolean }>
}

const plans = fc.record({
  syncs: fc.array(
    fc.record({ pair: fc.integer({ min: 0, max: 3 }), size: fc.integer({ min: 0, max: 40 }), fails: fc.boolean() }),
    { minLength: 3, maxLength: 10 }
  )
})

layer(TestLayer, { timeout: 120_000, excludeTestServices: true })("the events feed beside concurrent syncs", (it) => {
  it.effect("each poller's copy equals a full load, with no event twice and no sequence skipped", () =>
    Effect.gen(function* () {
      const sql = yield* SqlClient.SqlClient
      const store = yield* PairStore
      const feed = yield* EventFeed
      const receivableStore = yield* ReceivableStore
      for (const plan of fc.sample(plans, 6) as ReadonlyArray<Plan>) {
        const [org] = yield* sql<{ id: string }>`INSERT INTO organizations (name) VALUES ('Feed') RETURNING id`
        const [debtor] = yield* sql<{ id: string }>`INSERT INTO debtors (name) VALUES ('D') RETURNING id`
        const pairs: Array<Pair> = []
        for (let i = 0; i < 4; i++) {
          const [vendor] = yield* sql<{ id: string }>`
            INSERT INTO vendors (org_id, name) VALUES (${org!.id}, ${`V${i}`}) RETURNING id`
          const [pair] = yield* sql<{ id: string }>`
            INSERT INTO integrations (org_id, vendor_id, debtor_id, connector, next_sync_at)
            VALUES (${org!.id}, ${vendor!.id}, ${debtor!.id}, 'simulator', now() + interval '1 day') RETURNING id`
          pairs.push(yield* store.get(pair!.id))
        }
        const orgId = pairs[0]!.orgId

        // Each sync begins, writes in a few chunks with pauses, and ends (or fails) at a random
        // moment, so commits come out of the order syncs began in.
        const runSync = (spec: Plan["syncs"][number], index: number) =>
          Effect.scoped(
            Effect.gen(function* () {
              const pair = pairs[spec.pair]!
              const session = yield* store.session(pair, `w${index}`, yield* DateTime.now)
              const keys = Array.from({ length: spec.size }, (_, i) => `k${i}`)
              for (let from = 0; from < keys.length; from += 10) {
                const chunk = keys.slice(from, from + 10)
                const current = yield* session.receivablesByKeys(chunk)
                const states = fc.sample(arbitraryState, chunk.length)
                yield* session.writeChunk(
                  writesFor(
                    current,
                    chunk.map((k, i) => [k, states[i]!] as const),
                    session.at
                  )
                )
                yield* Effect.sleep(yield* Random.nextIntBetween(0, 15))
              }
              if (spec.fails) return yield* Effect.fail("the portal failed part-way")
              const counts = { fetched: spec.size, created: 0, updated: 0, unchanged: 0, quarantined: 0 }
              yield* session.finish({ counts, quarantine: [], nextSyncAt: DateTime.add(session.at, { hours: 1 }) })
            })
          ).pipe(Effect.ignore)

        const seen = new Set<string>()
        const sequences: Array<number> = []
        const copy = new Map<string, string>()
        const position = yield* Ref.make(0)
        const pollOnce = Effect.gen(function* () {
          for (;;) {
            const page = yield* Effect.orDie(feed.after(orgId, { after: yield* Ref.get(position), limit: 25 }))
            for (const event of page.events) {
              const key = `${event.batch}:${event.ordinal}`
              assert.isFalse(seen.has(key), "an event came twice")
              seen.add(key)
              sequences.push(event.sequence)
              const data = event.data as { readonly receivable_id: string; readonly tag: string }
              copy.set(data.receivable_id, data.tag)
            }
            if (page.events.length > 0) yield* Ref.set(position, page.events.at(-1)!.sequence)
            if (!page.hasMore) return
          }
        })
        // The list's items since `updatedSince` (all of them without it), by keyset pages of 7, and
        // the first page's watermark.
        const listSince = (updatedSince: DateTime.Utc | undefined) =>
          Effect.gen(function* () {
            const items: Array<typeof Receivable.Type> = []
            let startingAfter: ReceivableId | undefined
            let watermark: DateTime.Utc | undefined
            for (;;) {
              const page = yield* Effect.orDie(
                receivableStore.listReceivables(orgId, {
                  filter: { updatedSince },
                  window: pageWindow(1, 7),
                  startingAfter,
                  history: Option.none(),
                  metadata: false
                })
              )
              watermark ??= page.nextVerifiedSince
              items.push(...page.items)
              if (page.followingCount <= page.items.length) return { items, watermark }
              startingAfter = page.items.at(-1)!.id
              yield* Effect.sleep(yield* Random.nextIntBetween(0, 5))
            }
          })
        const watermarkCopy = new Map<string, string>()
        const since = yield* Ref.make<DateTime.Utc | undefined>(undefined)
        const pollWatermark = Effect.gen(function* () {
          const { items, watermark } = yield* listSince(yield* Ref.get(since))
          for (const item of items) watermarkCopy.set(item.id, fingerprint(item))
          yield* Ref.set(since, watermark)
        })

        const done = yield* Deferred.make<void>()
        const following = (poll: Effect.Effect<void>) =>
          Effect.forkChild(
            Effect.gen(function* () {
              while (!(yield* Deferred.isDone(done))) {
                yield* poll
                yield* Effect.sleep(3)
              }
              yield* poll
            })
          )
        const pollers = [yield* following(pollOnce), yield* following(pollWatermark)]
        yield* Effect.forEach(plan.syncs, runSync, { concurrency: "unbounded" })
        yield* Deferred.succeed(done, undefined)
        yield* Fiber.joinAll(pollers)

        assert.deepStrictEqual(
          sequences,
          sequences.map((_, i) => i + 1)
        )
        // The full load: every receivable as stored, and the tag of its last event in the feed.
        const stored = yield* sql<{ id: string; tag: string }>`
          SELECT DISTINCT ON (e.receivable_id) e.receivable_id AS id, e.data->>'tag' AS tag
          FROM events e JOIN event_batches b ON b.id = e.batch
          WHERE b.org_id = ${orgId} ORDER BY e.receivable_id, b.first_sequence + e.ordinal DESC`
        const receivables = yield* sql<{ id: string }>`SELECT id FROM receivables WHERE org_id = ${orgId}`
        assert.deepStrictEqual(new Set(copy.keys()), new Set(receivables.map((row) => row.id)))
        assert.deepStrictEqual(new Map(stored.map((row) => [row.id, row.tag])), copy)
        const fullLoad = yield* listSince(undefined)
        assert.deepStrictEqual(watermarkCopy, new Map(fullLoad.items.map((item) => [item.id, fingerprint(item)])))
      }
    })
  )

  it.effect("answers no event before the disk has it, though syncs commit without waiting for the disk", () =>
    Effect.gen(function* () {
      const sql = yield* SqlClient.SqlClient
      const store = yield* PairStore
      const feed = yield* EventFeed
      const [org] = yield* sql<{ id: string }>`INSERT INTO organizations (name) VALUES ('Durable') RETURNING id`
      const [debtor] = yield* sql<{ id: string }>`INSERT INTO debtors (name) VALUES ('D') RETURNING id`
      const [vendor] = yield* sql<{
        id: string
      }>`INSERT INTO vendors (org_id, name) VALUES (${org!.id}, 'V') RETURNING id`
      const [row] = yield* sql<{ id: string }>`
        INSERT INTO integrations (org_id, vendor_id, debtor_id, connector, next_sync_at)
        VALUES (${org!.id}, ${vendor!.id}, ${debtor!.id}, 'simulator', now() + interval '1 day') RETURNING id`
      const pair = yield* store.get(row!.id)
      // The WAL writer would otherwise flush the sync's commit within a fifth of a second.
      yield* Effect.acquireRelease(
        Effect.andThen(sql`ALTER SYSTEM SET wal_writer_delay = '10s'`, sql`SELECT pg_reload_conf()`),
        () => Effect.ignore(Effect.andThen(sql`ALTER SYSTEM RESET wal_writer_delay`, sql`SELECT pg_reload_conf()`))
      )
      yield* Effect.scoped(
        Effect.gen(function* () {
          const session = yield* store.session(pair, "durable", yield* DateTime.now)
          const current = yield* session.receivablesByKeys(["k"])
          yield* session.writeChunk(writesFor(current, [["k", fc.sample(arbitraryState, 1)[0]!]], session.at))
          yield* session.finish({
            counts: noCounts,
            quarantine: [],
            nextSyncAt: DateTime.add(session.at, { hours: 1 })
          })
        })
      )
      const [written] = yield* sql<{ lsn: string }>`SELECT pg_current_wal_insert_lsn()::text AS lsn`
      const page = yield* Effect.orDie(feed.after(pair.orgId, { after: 0, limit: 10 }))
      assert.strictEqual(page.events.length, 1)
      const [flushed] = yield* sql<{ durable: boolean }>`
        SELECT pg_current_wal_flush_lsn() >= ${written!.lsn}::pg_lsn AS durable`
      assert.isTrue(flushed!.durable, "the event was answered before the disk had it")
    })
  )
})
