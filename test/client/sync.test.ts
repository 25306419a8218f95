/**
 * `sync` over the fake API: a full load then the changes, on either feed, leaves the caller's copy
 * equal to a full load field for field (schedules included, which move without a change),
 * whatever commits while it pages; a crash at any receivable resumes from the last stored
 * checkpoint and still misses nothing; an expired events cursor reloads (or is thrown).
 */
import { assert, describe, it } from "@effect/vitest"
import fc from "fast-check"
import {
  InvalidRequestError,
  PartnerReceivables,
  type SyncCheckpoint,
  type SyncedReceivable
} from "../../client/src/mod.ts"
import { FakeApi } from "./FakeApi.ts"

const feeds = ["events", "watermark"] as const
type Feed = (typeof feeds)[number]

/** A consumer: its copy, upserted by id and given its pairs' schedules, and its stored checkpoint, as JSON. */
class Consumer {
  readonly copy = new Map<string, SyncedReceivable>()
  stored: string | undefined
  readonly client: PartnerReceivables
  constructor(client: PartnerReceivables) {
    this.client = client
  }

  sync(feed: Feed, crashAfter = Number.POSITIVE_INFINITY) {
    let handed = 0
    return this.client.sync({
      feed,
      limit: 3,
      checkpoint: this.stored === undefined ? undefined : (JSON.parse(this.stored) as SyncCheckpoint),
      onReceivable: (receivable) => {
        if (handed++ === crashAfter) throw new Error("crash")
        this.copy.set(receivable.id, receivable)
      },
      onSchedule: (schedule) => {
        for (const receivable of this.copy.values()) {
          if (receivable.vendor.id === schedule.vendor_id && receivable.debtor.id === schedule.debtor_id) {
            this.copy.set(receivable.id, { ...receivable, estimated_next_update_at: schedule.estimated_next_update_at })
          }
        }
      },
      saveCheckpoint: (checkpoint) => {
        this.stored = JSON.stringify(checkpoint)
      }
    })
  }
}

const setup = () => {
  const api = new FakeApi()
  const client = new PartnerReceivables({ apiKey: "pr_live_x", baseUrl: "https://api.test", fetch: api.fetch })
  return { api, consumer: new Consumer(client) }
}

const assertCopyEqualsApi = (consumer: Consumer, api: FakeApi) => {
  const byId = (a: SyncedReceivable, b: SyncedReceivable) => a.id.localeCompare(b.id)
  assert.deepStrictEqual([...consumer.copy.values()].sort(byId), api.fullLoad().sort(byId))
}

describe("sync", () => {
  for (const feed of feeds) {
    it(`(${feed}) loads everything, then only what changed, and the copy equals the API's`, async () => {
      const { api, consumer } = setup()
      api.create(8)
      const first = await consumer.sync(feed)
      assert.isTrue(first.fullLoad)
      assert.strictEqual(first.receivables, 8)
      assertCopyEqualsApi(consumer, api)

      api.update(2, "PAID", 5)
      api.create(1)
      const requestsBefore = api.requests.length
      const second = await consumer.sync(feed)
      assert.isFalse(second.fullLoad)
      // The watermark is at or before the last commit it covers: that receivable may come again.
      if (feed === "events") assert.strictEqual(second.receivables, 2)
      else assert.isAtLeast(second.receivables, 2)
      const changesRead = api.requests.slice(requestsBefore).filter((url) => url.pathname !== "/v1/integrations")
      assert.strictEqual(changesRead.length, 1)
      assertCopyEqualsApi(consumer, api)
      assert.deepStrictEqual(JSON.parse(consumer.stored!), second.checkpoint)
    })

    it(`(${feed}) brings the schedules of pairs synced without a change, or paused, to the receivables it does not bring`, async () => {
      const { api, consumer } = setup()
      api.create(6)
      await consumer.sync(feed)
      api.reschedule(0)
      api.reschedule(1, true)
      const next = await consumer.sync(feed)
      // Nothing changed: the events feed brings no receivable, so the schedules alone must reach them.
      if (feed === "events") assert.strictEqual(next.receivables, 0)
      assertCopyEqualsApi(consumer, api)
      assert.isNull(api.pairs[1]!.schedule)
    })

    it(`(${feed}) misses nothing committed while it pages, and resumes after a crash at any receivable`, () =>
      fc.assert(
        fc.asyncProperty(
          fc.integer({ min: 0, max: 12 }),
          fc.integer({ min: 0, max: 30 }),
          fc.array(
            fc.oneof(
              fc.tuple(fc.nat({ max: 11 }), fc.constantFrom("APPROVED", "PAID" as const), fc.nat()),
              fc.tuple(fc.constant("reschedule" as const), fc.nat({ max: 1 }), fc.boolean())
            ),
            { maxLength: 6 }
          ),
          async (count, crashAt, commits) => {
            const { api, consumer } = setup()
            api.create(count)
            // A sync commits before each of the client's requests, while it pages: a change, or
            // one that finds nothing changed and only moves its pair's schedule (or a pausing).
            const pending = [...commits]
            api.beforeAnswer = () => {
              const next = pending.shift()
              if (next === undefined) return
              if (next[0] === "reschedule") return api.reschedule(next[1], next[2])
              const [index, status, amount] = next
              if (index < api.receivables.length) api.update(index, status, amount)
              else api.create(1)
            }
            await consumer.sync(feed, crashAt).catch((error: Error) => assert.strictEqual(error.message, "crash"))
            await consumer.sync(feed)
            api.beforeAnswer = () => {}
            await consumer.sync(feed)
            assertCopyEqualsApi(consumer, api)
          }
        ),
        { numRuns: 60 }
      ))
  }

  it("reloads when the events cursor has expired, and says it did", async () => {
    const { api, consumer } = setup()
    api.create(4)
    await consumer.sync("events")
    api.update(0, "PAID", 1)
    api.create(2)
    api.prunedThrough = api.events.length
    const reloaded = await consumer.sync("events")
    assert.isTrue(reloaded.fullLoad)
    assert.strictEqual(reloaded.receivables, 6)
    assertCopyEqualsApi(consumer, api)
  })

  it("throws cursor_expired when asked to, leaving the checkpoint where it was", async () => {
    const { api, consumer } = setup()
    api.create(2)
    await consumer.sync("events")
    const stored = consumer.stored
    api.create(1)
    api.prunedThrough = api.events.length
    const error = await consumer.client
      .sync({
        checkpoint: JSON.parse(stored!) as SyncCheckpoint,
        onReceivable: () => {},
        saveCheckpoint: () => assert.fail("no checkpoint to save"),
        onCursorExpired: "throw"
      })
      .then(
        () => assert.fail("expected cursor_expired"),
        (e: unknown) => e
      )
    assert.instanceOf(error, InvalidRequestError)
    assert.strictEqual(error.code, "cursor_expired")
  })

  it("hands every event to onEvent, status changes included, in sequence", async () => {
    const { api, consumer } = setup()
    api.create(2)
    api.update(1, "PAID", 3)
    const checkpoint: SyncCheckpoint = { feed: "events", after: 0 }
    const sequences: Array<number> = []
    await consumer.client.sync({
      checkpoint,
      onReceivable: () => {},
      onEvent: (event) => void sequences.push(event.sequence),
      saveCheckpoint: () => {}
    })
    assert.deepStrictEqual(sequences, [1, 2, 3, 4])
  })
})
