/**
 * `GET /v1/events` and `GET /v1/events/:id` over a real socket and a real PostgreSQL: syncs of
 * the fixture's pairs write events; the feed serves them in sequence, filters and pages them,
 * answers one by id, and refuses bad cursors in the documented error shape. Another
 * organization's events are never visible.
 */
import { assert, layer } from "@effect/vitest"
import { Context, Effect, Layer } from "effect"
import { SqlClient } from "effect/sql"
import * as PgPairStore from "../../adapters/postgres/PgPairStore.ts"
import { type Fixture, insertFixture, keys } from "../support/Fixtures.ts"
import { document, makeScriptedSync } from "../support/ScriptedSync.ts"
import { BaseUrl, layer as serverLayer } from "../support/TestServer.ts"

class TestFixture extends Context.Service<TestFixture, Fixture>()("test/Fixture") {}

const TestLayer = Layer.effect(TestFixture, insertFixture).pipe(
  Layer.provideMerge(PgPairStore.layer),
  Layer.provideMerge(serverLayer)
)

const call = (path: string, key: string | null = keys.orgA) =>
  Effect.gen(function* () {
    const base = yield* BaseUrl
    const response = yield* Effect.promise(() =>
      fetch(`${base}${path}`, { headers: key === null ? {} : { authorization: `Bearer ${key}` } })
    )
    // biome-ignore lint/suspicious/noExplicitAny: JSON bodies are inspected field by field
    const body: any = yield* Effect.promise(() => response.json())
    return { status: response.status, body }
  })

/** One sync of the organization's first pair with these documents, as the engine would run it. */
const sync = makeScriptedSync(0xe2e000)

layer(TestLayer, { timeout: 60_000, excludeTestServices: true })("GET /v1/events", (it) => {
  it.effect(
    "serves a sync's events in sequence, with the documented payloads, one by id, and only to their organization",
    () =>
      Effect.gen(function* () {
        const f = yield* TestFixture
        const before = yield* call("/v1/events?limit=1")
        assert.strictEqual(before.status, 200)
        const start = before.body.latest_sequence as number
        yield* sync(f.orgA, [document("e1", "Submitted"), document("e2", "Submitted")])
        yield* sync(f.orgA, [document("e1", "Paid"), document("e2", "Submitted")])

        const page = yield* call(`/v1/events?after=${start}`)
        assert.strictEqual(page.status, 200)
        assert.strictEqual(page.body.object, "list")
        assert.isFalse(page.body.has_more)
        const events = page.body.data
        assert.deepStrictEqual(
          events.map((e: { type: string }) => e.type),
          ["receivable.created", "receivable.created", "receivable.updated", "receivable.status_changed"]
        )
        assert.deepStrictEqual(
          events.map((e: { sequence: number }) => e.sequence),
          [start + 1, start + 2, start + 3, start + 4]
        )
        assert.strictEqual(page.body.latest_sequence, start + 4)
        const [created, , updated, changed] = events
        assert.match(created.id, /^evt_[0-9a-f]{32}$/)
        assert.strictEqual(created.object, "event")
        assert.strictEqual(created.data.receivable.object, "receivable")
        assert.strictEqual(created.data.receivable.status, "PENDING")
        assert.deepStrictEqual(created.data.receivable.metadata, { source: "e2e" })
        assert.strictEqual(updated.data.receivable.status, "PAID")
        assert.deepStrictEqual(updated.data.changes.status, { from: "PENDING", to: "PAID" })
        assert.deepStrictEqual(Object.keys(changed.data).sort(), [
          "changed_at",
          "debtor",
          "new_portal_status",
          "new_status",
          "previous_portal_status",
          "previous_status",
          "receivable_id",
          "vendor"
        ])
        assert.strictEqual(changed.created_at, changed.data.changed_at)

        // Filters and pages.
        const statusOnly = yield* call(`/v1/events?after=${start}&type=receivable.status_changed`)
        assert.deepStrictEqual(statusOnly.body.data, [changed])
        const two = yield* call(`/v1/events?after=${start}&type=receivable.created&type=receivable.updated&limit=2`)
        assert.deepStrictEqual(two.body.data, events.slice(0, 2))
        assert.isTrue(two.body.has_more)

        // One event by id; another organization sees neither it nor the feed's events.
        const single = yield* call(`/v1/events/${changed.id}`)
        assert.strictEqual(single.status, 200)
        assert.deepStrictEqual(single.body, changed)
        const foreign = yield* call(`/v1/events/${changed.id}`, keys.orgB)
        assert.strictEqual(foreign.status, 404)
        assert.strictEqual(foreign.body.error.code, "resource_missing")
        const theirs = yield* call("/v1/events", keys.orgB)
        assert.deepStrictEqual(theirs.body.data, [])
      })
  )

  it.effect("refuses bad cursors, types and ids in the documented error shape", () =>
    Effect.gen(function* () {
      const latest = (yield* call("/v1/events?limit=1")).body.latest_sequence as number
      const cases = [
        ["/v1/events?after=-1", 400, "parameter_invalid", "after"],
        ["/v1/events?after=abc", 400, "parameter_invalid", "after"],
        [`/v1/events?after=${latest + 1}`, 400, "parameter_invalid", "after"],
        ["/v1/events?type=receivable.deleted", 400, "parameter_invalid", "type"],
        ["/v1/events?limit=501", 400, "parameter_invalid", "limit"],
        ["/v1/events?since=1", 400, "parameter_unknown", "since"],
        ["/v1/events/evt_nope", 404, "resource_missing", "id"],
        [`/v1/events/evt_${"f".repeat(32)}`, 404, "resource_missing", "id"]
      ] as const
      for (const [path, status, code, param] of cases) {
        const answer = yield* call(path)
        assert.strictEqual(answer.status, status, path)
        assert.strictEqual(answer.body.error.code, code, path)
        assert.strictEqual(answer.body.error.param, param, path)
      }
      const anonymous = yield* call("/v1/events", null)
      assert.strictEqual(anonymous.status, 401)
    })
  )

  it.effect("an after older than the retention is refused with cursor_expired, telling the client to reload", () =>
    Effect.gen(function* () {
      const f = yield* TestFixture
      const sql = yield* SqlClient.SqlClient
      yield* sync(f.orgA, [document("old", "Submitted")])
      // As the retention job leaves it once this organization's first events are gone.
      yield* sql`UPDATE event_counters SET pruned_through = 2 WHERE org_id = ${f.orgA}`
      const answer = yield* call("/v1/events?after=1")
      assert.strictEqual(answer.status, 400)
      assert.strictEqual(answer.body.error.code, "cursor_expired")
      assert.strictEqual(answer.body.error.param, "after")
      assert.match(answer.body.error.message, /full load/)
    })
  )
})
