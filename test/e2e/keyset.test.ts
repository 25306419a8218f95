/**
 * `GET /v1/receivables` with `starting_after`, and its `next_verified_since`, over a real socket and
 * a real PostgreSQL, syncing through the real pair sessions: keyset pages combine with every
 * filter and never skip nor repeat an item that keeps matching while syncs move others out of
 * the filter (where paging by number does skip); refusals are in the documented error shape;
 * the watermark of a read made during a sync brings that sync's changes into the next poll.
 */
import { randomBytes } from "node:crypto"
import { assert, layer } from "@effect/vitest"
import { Context, DateTime, Deferred, Effect, Fiber, Layer, Schema } from "effect"
import { SqlClient } from "effect/sql"
import * as PgPairStore from "../../adapters/postgres/PgPairStore.ts"
import { type FetchedDocument, planPairSync } from "../../core/receivables/domain/PairSync.ts"
import { ReceivableList } from "../../core/receivables/domain/Resources.ts"
import { PairStore } from "../../core/receivables/ports/PairStore.ts"
import type { ReceivableId } from "../../core/shared/domain/Ids.ts"
import { type Fixture, insertFixture, keys } from "../support/Fixtures.ts"
import { BaseUrl, layer as serverLayer } from "../support/TestServer.ts"

class TestFixture extends Context.Service<TestFixture, Fixture>()("test/Fixture") {}

const TestLayer = Layer.effect(TestFixture, insertFixture).pipe(
  Layer.provideMerge(PgPairStore.layer),
  Layer.provideMerge(serverLayer)
)

interface Answer {
  readonly status: number
  // biome-ignore lint/suspicious/noExplicitAny: JSON bodies are inspected field by field
  readonly body: any
}

const call = (path: string, key: string = keys.orgA) =>
  Effect.gen(function* () {
    const base = yield* BaseUrl
    const response = yield* Effect.promise(() =>
      fetch(`${base}${path}`, { headers: { authorization: `Bearer ${key}` } })
    )
    return { status: response.status, body: yield* Effect.promise(() => response.json()) } as Answer
  })

const ids = (answer: Answer): ReadonlyArray<string> => answer.body.data.map((item: { id: string }) => item.id)

const assertInvalid = (answer: Answer, param: string) => {
  assert.strictEqual(answer.status, 400, JSON.stringify(answer.body))
  assert.deepStrictEqual(Object.keys(answer.body), ["error"])
  assert.strictEqual(answer.body.error.type, "invalid_request_error")
  assert.strictEqual(answer.body.error.code, "parameter_invalid")
  assert.strictEqual(answer.body.error.param, param)
  assert.isString(answer.body.error.message)
}

type Between = (page: ReadonlyArray<string>) => Effect.Effect<void, never, PairStore | SqlClient.SqlClient>

/**
 * Every page of `query`, each after the last item of the one before (or by page number), with
 * `between` run after each page but the last; every id in the order seen.
 */
const walk = (query: string, between: Between = () => Effect.void, by: "cursor" | "number" = "cursor") =>
  Effect.gen(function* () {
    const seen: Array<string> = []
    for (let page = 1; ; page++) {
      const position = by === "number" ? `&page=${page}` : seen.length === 0 ? "" : `&starting_after=${seen.at(-1)}`
      const answer = yield* call(`/v1/receivables?${query}${position}`)
      assert.strictEqual(answer.status, 200, JSON.stringify(answer.body))
      seen.push(...ids(answer))
      if (!answer.body.has_more) return seen
      yield* between(ids(answer))
    }
  })

const document = (key: string, portalStatus: string): FetchedDocument => ({
  documentKey: key,
  vendorReceivableId: `INV-${key}`,
  amountCents: 10_000,
  currency: "EUR",
  receivableDate: "2026-11-01",
  dueDate: null,
  portalStatus,
  poNumber: null,
  metadata: {}
})

/** One sync of the pair with these documents, through the pair session as the engine runs it. */
const syncPair = (pairId: string, documents: ReadonlyArray<FetchedDocument>) =>
  Effect.gen(function* () {
    const store = yield* PairStore
    const pair = yield* store.get(pairId)
    yield* Effect.scoped(
      Effect.gen(function* () {
        const session = yield* store.session(pair, "e2e", yield* DateTime.now)
        const current = yield* session.receivablesByKeys(documents.map((d) => d.documentKey))
        const plan = planPairSync(current, documents, {
          refs: pair.refs,
          now: session.at,
          newReceivableId: () => `rcv_${randomBytes(16).toString("hex")}` as ReceivableId
        })
        yield* session.writeChunk(plan)
        const counts = { fetched: documents.length, created: 0, updated: 0, unchanged: 0, quarantined: 0 }
        yield* session.finish({ counts, quarantine: [], nextSyncAt: DateTime.add(session.at, { hours: 1 }) })
      })
    )
  }).pipe(Effect.orDie)

/** A new pair of vendor A3 (which has none) with a debtor of its own, synced from `batches` of documents. */
const newPair = (batches: ReadonlyArray<ReadonlyArray<FetchedDocument>>) =>
  Effect.gen(function* () {
    const f = yield* TestFixture
    const sql = yield* SqlClient.SqlClient
    const [debtor] = yield* sql<{ id: string }>`INSERT INTO debtors (name) VALUES ('Keyset Debtor') RETURNING id`
    const [pair] = yield* sql<{ id: string }>`
      INSERT INTO integrations (org_id, vendor_id, debtor_id, connector, next_sync_at)
      VALUES (${f.orgA}, ${f.vendorA3}, ${debtor!.id}, 'simulator', now() + interval '1 hour') RETURNING id`
    // Separate syncs detect their receivables at different times; one sync's share theirs.
    for (const batch of batches) yield* syncPair(pair!.id, batch)
    return { pairId: pair!.id, debtorId: debtor!.id }
  }).pipe(Effect.orDie)

/** The document key of each of the pair's receivables, by receivable id. */
const byKey = (pair: { readonly pairId: string }) =>
  Effect.gen(function* () {
    const sql = yield* SqlClient.SqlClient
    const rows = yield* sql<{ id: string; document_key: string }>`
      SELECT id, document_key FROM receivables WHERE integration_id = ${pair.pairId}`.pipe(Effect.orDie)
    return new Map(rows.map((row) => [row.id, row.document_key]))
  })

layer(TestLayer, { timeout: 120_000, excludeTestServices: true })("GET /v1/receivables?starting_after", (it) => {
  it.effect("walks the list after each page's last item: every item once, in order, with every filter", () =>
    Effect.gen(function* () {
      const f = yield* TestFixture
      const all = f.receivablesA.map((r) => r.id)
      assert.deepStrictEqual(yield* walk("verified_since=all&limit=3"), all)
      assert.deepStrictEqual(yield* walk("verified_since=all&limit=1"), all)
      const cases: ReadonlyArray<readonly [string, (r: Fixture["receivablesA"][number]) => boolean]> = [
        [`verified_since=all&vendor_id=${f.vendorA1}`, (r) => r.vendor === f.vendorA1],
        [`verified_since=all&debtor_id=${f.debtor1}`, (r) => r.debtor === f.debtor1],
        ["verified_since=all&status=APPROVED", (r) => r.status === "APPROVED"],
        [
          `verified_since=all&vendor_id=${f.vendorA1}&debtor_id=${f.debtor1}&status=APPROVED`,
          (r) => r.vendor === f.vendorA1 && r.debtor === f.debtor1 && r.status === "APPROVED"
        ],
        // The default 24-hour window.
        ["status=PENDING", (r) => r.status === "PENDING" && r.updatedHoursAgo < 24],
        ["verified_since=2026-01-01", (r) => r.updatedHoursAgo < 24 * 30]
      ]
      for (const [query, keep] of cases) {
        const expected = f.receivablesA.filter(keep).map((r) => r.id)
        for (const limit of [1, 2]) assert.deepStrictEqual(yield* walk(`limit=${limit}&${query}`), expected, query)
      }
    })
  )

  it.effect("a page after an item is the list without a cursor cut after that item, with counts and expansions", () =>
    Effect.gen(function* () {
      const f = yield* TestFixture
      const query = `verified_since=all&vendor_id=${f.vendorA1}&expand[]=history&expand[]=metadata&history_limit=2`
      const whole = (yield* call(`/v1/receivables?${query}`)).body
      // The hand-written envelope is exactly what the contract's schema writes.
      assert.deepStrictEqual(Schema.encodeSync(ReceivableList)(Schema.decodeUnknownSync(ReceivableList)(whole)), whole)
      for (const [index, item] of whole.data.entries()) {
        const after = (yield* call(`/v1/receivables?${query}&limit=2&starting_after=${item.id}`)).body
        assert.deepStrictEqual(after.data, whole.data.slice(index + 1, index + 3))
        assert.strictEqual(after.total_count, whole.total_count)
        assert.strictEqual(after.has_more, index + 3 < whole.data.length)
      }
      // An explicit page=1 is the default, and allowed.
      const first = f.receivablesA[0]!.id
      assert.strictEqual((yield* call(`/v1/receivables?${query}&page=1&starting_after=${first}`)).status, 200)
    })
  )

  it.effect("the item named places the page by its own position, even when the filter no longer keeps it", () =>
    Effect.gen(function* () {
      const f = yield* TestFixture
      // The third receivable is PAID; the APPROVED ones after it are the eighth.
      const paid = f.receivablesA[2]!
      assert.strictEqual(paid.status, "PAID")
      const answer = yield* call(`/v1/receivables?verified_since=all&status=APPROVED&starting_after=${paid.id}`)
      assert.deepStrictEqual(ids(answer), [f.receivablesA[7]!.id])
      assert.strictEqual(answer.body.total_count, 2)
      assert.isFalse(answer.body.has_more)
      const last = f.receivablesA.at(-1)!.id
      const end = yield* call(`/v1/receivables?verified_since=all&starting_after=${last}`)
      assert.deepStrictEqual(end.body.data, [])
      assert.strictEqual(end.body.total_count, f.receivablesA.length)
      assert.isFalse(end.body.has_more)
    })
  )

  it.effect("refuses a page other than 1 with it, and an id that is malformed, unknown or another organization's", () =>
    Effect.gen(function* () {
      const f = yield* TestFixture
      const own = f.receivablesA[0]!.id
      const withPage = yield* call(`/v1/receivables?page=2&starting_after=${own}`)
      assertInvalid(withPage, "page")
      assert.include(withPage.body.error.message, "starting_after")
      for (const id of ["rcv_123", own.toUpperCase(), "", "rcv_zzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzz"]) {
        const malformed = yield* call(`/v1/receivables?starting_after=${id}`)
        assertInvalid(malformed, "starting_after")
        assert.match(malformed.body.error.message, /rcv_ and 32 lower-case hexadecimal characters/)
      }
      // Unknown and another organization's: the same answer, naming only what was sent.
      const unknown = yield* call(`/v1/receivables?starting_after=rcv_${"f".repeat(32)}`)
      const foreign = yield* call(`/v1/receivables?starting_after=${f.receivableB}`)
      for (const [answer, id] of [
        [unknown, `rcv_${"f".repeat(32)}`],
        [foreign, f.receivableB]
      ] as const) {
        assertInvalid(answer, "starting_after")
        assert.strictEqual(
          answer.body.error.message,
          `No receivable "${id}" in your organization: pass the id of an item a list gave you.`
        )
      }
      assert.strictEqual((yield* call(`/v1/receivables?starting_after=${f.receivableB}`, keys.orgB)).status, 200)
      assertInvalid(yield* call(`/v1/receivables?starting_after=${own}&starting_after=${own}`), "starting_after")
    })
  )

  it.effect(
    "status=PENDING paging while syncs move receivables out of PENDING: keyset skips and repeats nothing, page numbers skip",
    () =>
      Effect.gen(function* () {
        // 24 PENDING receivables from three syncs (a sync's share their detected_at, so ids order them).
        const keys = Array.from({ length: 24 }, (_, i) => `k-${i}`)
        const batches = [0, 1, 2].map((b) => keys.slice(8 * b, 8 * b + 8).map((k) => document(k, "Submitted")))
        // After each page, a sync pays two: the page's first item (now behind the reader) and the
        // last PENDING one (still ahead of it). Every other receivable stays PENDING throughout.
        const paying =
          (pair: { readonly pairId: string }, moved: Set<string>): Between =>
          (page) =>
            Effect.gen(function* () {
              const sql = yield* SqlClient.SqlClient
              const [ahead] = yield* sql<{ document_key: string }>`
              SELECT document_key FROM receivables WHERE integration_id = ${pair.pairId} AND status = 'PENDING'
              ORDER BY detected_at DESC, id DESC LIMIT 1`.pipe(Effect.orDie)
              const behind = (yield* byKey(pair)).get(page[0]!)!
              for (const key of [behind, ahead!.document_key]) moved.add(key)
              yield* syncPair(pair.pairId, [document(behind, "Paid"), document(ahead!.document_key, "Paid")])
            })
        const query = (pair: { readonly debtorId: string }) =>
          `verified_since=all&status=PENDING&debtor_id=${pair.debtorId}&limit=4`
        const seenKeys = (pair: { readonly pairId: string }, walked: ReadonlyArray<string>) =>
          Effect.map(byKey(pair), (keyOf) => walked.map((id) => keyOf.get(id)!))

        const keyset = yield* newPair(batches)
        const movedKeyset = new Set<string>()
        const seen = yield* seenKeys(keyset, yield* walk(query(keyset), paying(keyset, movedKeyset)))
        assert.isAbove(movedKeyset.size, 4, "syncs ran between pages")
        assert.strictEqual(new Set(seen).size, seen.length, "no item repeated")
        for (const key of keys.filter((k) => !movedKeyset.has(k))) {
          assert.strictEqual(seen.filter((k) => k === key).length, 1, `${key} seen once`)
        }

        // The same walk by page number misses receivables that stayed PENDING throughout: each one
        // paid behind the reader moves the rest back by one, past the next page's start.
        const numbered = yield* newPair(batches)
        const movedNumbered = new Set<string>()
        const byNumber = yield* seenKeys(
          numbered,
          yield* walk(query(numbered), paying(numbered, movedNumbered), "number")
        )
        const missed = keys.filter((k) => !movedNumbered.has(k) && !byNumber.includes(k))
        assert.isAbove(missed.length, 0, "paging by number skips")
      })
  )

  it.effect(
    "keyset paging while syncs run concurrently: every receivable that stays PENDING is seen exactly once",
    () =>
      Effect.gen(function* () {
        const keysOf = Array.from({ length: 40 }, (_, i) => `c-${i}`)
        const pair = yield* newPair(
          [keysOf.slice(0, 20), keysOf.slice(20)].map((batch) => batch.map((k) => document(k, "Submitted")))
        )
        const movers = keysOf.filter((_, i) => i % 4 === 1)
        // Movers leave PENDING and come back, sync after sync, while the client pages.
        const stop = yield* Deferred.make<void>()
        const syncs = yield* Effect.forkChild(
          Effect.gen(function* () {
            let round = 0
            for (; !(yield* Deferred.isDone(stop)); round++) {
              yield* syncPair(
                pair.pairId,
                movers.map((k) => document(k, round % 2 === 0 ? "Paid" : "Submitted"))
              )
            }
            return round
          })
        )
        for (let pass = 0; pass < 3; pass++) {
          const walked = yield* walk(`verified_since=all&status=PENDING&debtor_id=${pair.debtorId}&limit=3`)
          assert.strictEqual(new Set(walked).size, walked.length, "no item repeated")
          const keyOf = yield* byKey(pair)
          const keys = walked.map((id) => keyOf.get(id)!)
          for (const key of keysOf.filter((k) => !movers.includes(k))) {
            assert.strictEqual(keys.filter((k) => k === key).length, 1, `${key} seen once in pass ${pass}`)
          }
        }
        yield* Deferred.succeed(stop, undefined)
        // The walks did run beside syncs, several of them.
        assert.isAtLeast(yield* Fiber.join(syncs), 3)
      })
  )
})

layer(TestLayer, { timeout: 120_000, excludeTestServices: true })("next_verified_since", (it) => {
  it.effect("is the time of the read, in milliseconds, when no sync is running", () =>
    Effect.gen(function* () {
      const before = Date.now()
      const answer = yield* call("/v1/receivables")
      const after = Date.now()
      const watermark = answer.body.next_verified_since as string
      assert.match(watermark, /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/)
      assert.isAtLeast(Date.parse(watermark), before)
      assert.isAtMost(Date.parse(watermark), after)
    })
  )

  it.effect("a read during a sync gives an instant that brings the sync's changes into the next poll", () =>
    Effect.gen(function* () {
      const pair = yield* newPair([[document("w-1", "Submitted"), document("w-2", "Submitted")]])
      const poll = (since: string) =>
        call(`/v1/receivables?debtor_id=${pair.debtorId}&verified_since=${encodeURIComponent(since)}`)
      const store = yield* PairStore
      const integration = yield* Effect.orDie(store.get(pair.pairId))
      const { read, answeredAt, changedAt } = yield* Effect.scoped(
        Effect.gen(function* () {
          // The sync has marked its pair and written its change, but not committed.
          const session = yield* store.session(integration, "e2e", yield* DateTime.now)
          const current = yield* session.receivablesByKeys(["w-1"])
          yield* session.writeChunk(
            planPairSync(current, [document("w-1", "Paid")], {
              refs: integration.refs,
              now: session.at,
              newReceivableId: () => `rcv_${randomBytes(16).toString("hex")}` as ReceivableId
            })
          )
          const read = yield* poll("all")
          const answeredAt = Date.now()
          const counts = { fetched: 1, created: 0, updated: 1, unchanged: 0, quarantined: 0 }
          yield* session.finish({ counts, quarantine: [], nextSyncAt: DateTime.add(session.at, { hours: 1 }) })
          return { read, answeredAt, changedAt: DateTime.toEpochMillis(session.at) }
        })
      )
      const watermark = read.body.next_verified_since as string
      // The read saw the receivable as it was; the change committed after the read.
      assert.deepStrictEqual(
        read.body.data.map((r: { status: string }) => r.status),
        ["PENDING", "PENDING"]
      )
      assert.isAtMost(Date.parse(watermark), changedAt)

      const next = yield* poll(watermark)
      const changed = next.body.data.find((r: { status: string }) => r.status === "PAID")
      assert.isDefined(changed, "the next poll from the watermark has the sync's change")
      assert.strictEqual(Date.parse(changed.updated_at), changedAt)
      // Polling from the time the read was answered would have missed it: it carries an earlier time.
      assert.isBelow(changedAt, answeredAt)
    })
  )
})
