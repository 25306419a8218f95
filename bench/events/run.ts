/**
 * The events feed's read benchmark (`npm run bench:events`): on a fresh embedded PostgreSQL, one
 * organization's syncs write BENCH_EVENTS events (default 100,000: 200 pairs of 500 new
 * receivables, then a resync changing a tenth of them), and a reader pages through the whole
 * feed at `limit=500` through the PostgreSQL adapter. Reports events per second, and the time of
 * a page at the start, the middle and the end of the feed side by side (a page must cost the
 * same at any depth). Options (environment): BENCH_PAIRS, BENCH_PER_PAIR; BENCH_SMOKE=1 for a run
 * of seconds (4 pairs of 50).
 */
import { PgClient } from "@effect/sql-pg"
import { DateTime, Effect, Exit, Layer, Redacted, Scope } from "effect"
import { SqlClient } from "effect/sql"
import * as PgEventFeed from "../../adapters/postgres/PgEventFeed.ts"
import * as PgPairStore from "../../adapters/postgres/PgPairStore.ts"
import { type FetchedDocument, planPairSync } from "../../core/receivables/domain/PairSync.ts"
import { EventFeed } from "../../core/receivables/ports/EventFeed.ts"
import { PairStore } from "../../core/receivables/ports/PairStore.ts"
import type { OrgId, ReceivableId } from "../../core/shared/domain/Ids.ts"
import { migratedDatabase, startCluster } from "../support/FreshDatabase.ts"
import { option } from "../support/Smoke.ts"

const pairs = option("BENCH_PAIRS", 200, 4)
const perPair = option("BENCH_PER_PAIR", 500, 50)
const log = (line: string) => process.stderr.write(`${line}\n`)

const document = (key: string, revised: boolean): FetchedDocument => ({
  documentKey: key,
  vendorReceivableId: `INV-${key}`,
  amountCents: revised ? 10_001 : 10_000,
  currency: "EUR",
  receivableDate: "2026-11-01",
  dueDate: "2026-12-01",
  portalStatus: revised ? "Paid" : "Submitted",
  poNumber: `PO-${key}`,
  metadata: { region: "EU", cost_center: "4711" }
})

let serial = 0
const syncPair = (id: string, revise: boolean) =>
  Effect.scoped(
    Effect.gen(function* () {
      const store = yield* PairStore
      const pair = yield* store.get(id)
      const session = yield* store.session(pair, "bench", yield* DateTime.now)
      const documents = Array.from({ length: perPair }, (_, i) => document(`d${i}`, revise && i % 10 === 0))
      const current = yield* session.receivablesByKeys(documents.map((d) => d.documentKey))
      const plan = planPairSync(current, documents, {
        refs: pair.refs,
        now: session.at,
        newReceivableId: () => `rcv_${(++serial).toString(16).padStart(32, "0")}` as ReceivableId
      })
      yield* session.writeChunk(plan)
      const counts = { fetched: perPair, created: plan.inserts.length, updated: 0, unchanged: 0, quarantined: 0 }
      yield* session.finish({ counts, quarantine: [], nextSyncAt: DateTime.add(session.at, { hours: 1 }) })
      return plan.events.length
    })
  )

const main = Effect.gen(function* () {
  const server = yield* startCluster("events")
  const db = PgClient.layer({ url: Redacted.make(yield* migratedDatabase(server.url)), maxConnections: 4 })

  yield* Effect.gen(function* () {
    const sql = yield* SqlClient.SqlClient
    const feed = yield* EventFeed
    const [org] = yield* sql<{ id: OrgId }>`INSERT INTO organizations (name) VALUES ('Bench') RETURNING id`
    yield* sql`INSERT INTO debtors (name) VALUES ('Debtor')`
    yield* sql`INSERT INTO vendors (org_id, name) SELECT ${org!.id}, 'Vendor ' || g FROM generate_series(1, ${pairs}) g`
    const ids = yield* sql<{ id: string }>`
      INSERT INTO integrations (org_id, vendor_id, debtor_id, connector, next_sync_at)
      SELECT v.org_id, v.id, d.id, 'simulator', now() + interval '1 day' FROM vendors v CROSS JOIN debtors d
      RETURNING id`
    let written = 0
    for (const revise of [false, true]) {
      for (const { id } of ids) written += yield* syncPair(id, revise)
    }
    yield* sql`VACUUM ANALYZE events, event_batches`
    log(`${written.toLocaleString("en")} events written by ${ids.length * 2} syncs`)

    const page = (after: number) =>
      Effect.gen(function* () {
        const started = performance.now()
        const result = yield* feed.after(org!.id, { after, limit: 500 })
        return { result, ms: performance.now() - started }
      })
    // Three rounds of the whole feed; the fastest counts (the machine's speed drifts).
    const rounds: Array<number> = []
    const depth = { start: [] as Array<number>, middle: [] as Array<number>, end: [] as Array<number> }
    for (let round = 0; round < 3; round++) {
      const started = performance.now()
      let after = 0
      let read = 0
      for (;;) {
        const { result } = yield* page(after)
        read += result.events.length
        if (!result.hasMore) break
        after = result.events.at(-1)!.sequence
      }
      rounds.push(read / ((performance.now() - started) / 1000))
      for (const [name, at] of [
        ["start", 0],
        ["middle", Math.floor(written / 2)],
        ["end", Math.max(0, written - 500)]
      ] as const) {
        for (let i = 0; i < 5; i++) depth[name].push((yield* page(at)).ms)
      }
    }
    const median = (values: Array<number>) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)]!
    process.stdout.write(
      `${[
        `| feed of ${written.toLocaleString("en")} events, limit=500 | value |`,
        "|---|---|",
        `| events/s, whole feed (best of 3 rounds) | ${Math.round(Math.max(...rounds)).toLocaleString("en")} |`,
        `| events/s, each round | ${rounds.map((r) => Math.round(r).toLocaleString("en")).join(" / ")} |`,
        `| page at the start, median ms | ${median(depth.start).toFixed(1)} |`,
        `| page in the middle, median ms | ${median(depth.middle).toFixed(1)} |`,
        `| page at the end, median ms | ${median(depth.end).toFixed(1)} |`
      ].join("\n")}\n`
    )
  }).pipe(Effect.provide(Layer.mergeAll(PgPairStore.layer, PgEventFeed.layer).pipe(Layer.provideMerge(db))))
})

const scope = Effect.runSync(Scope.make())
Effect.runPromise(main.pipe(Scope.provide(scope))).finally(() => Effect.runPromise(Scope.close(scope, Exit.void)))
