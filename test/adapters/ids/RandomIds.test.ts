import { assert, describe, it } from "@effect/vitest"
import { Duration, Effect } from "effect"
import fc from "fast-check"
import * as RandomIds from "../../../adapters/ids/RandomIds.ts"
import { IdSource } from "../../../core/shared/ports/IdSource.ts"
import { eventually } from "../../support/Eventually.ts"

const { randomSource, timeOrdered } = RandomIds
const hex = (bytes: Uint8Array) => Buffer.from(bytes).toString("hex")

describe("pooled randomness", () => {
  it("hands out fresh bytes of the asked size across refills, never the same bytes twice", () => {
    // A pool of 64 bytes: four 16-byte ids, or five 12-byte ones and a remainder, then a refill.
    for (const size of [16, 12]) {
      const next = randomSource(size, 64)
      const seen = new Set<string>()
      for (let i = 0; i < 2_000; i++) {
        const bytes = next()
        assert.strictEqual(bytes.length, size)
        seen.add(bytes.toString("hex"))
      }
      assert.strictEqual(seen.size, 2_000)
    }
  })

  it("gives each caller its own bytes: refilling the pool does not change ids already made", () => {
    const next = randomSource(16, 64)
    const first = next()
    const before = first.toString("hex")
    for (let i = 0; i < 8; i++) next()
    assert.strictEqual(first.toString("hex"), before)
  })
})

describe("time-ordered receivable ids", () => {
  const bytes = fc.uint8Array({ minLength: 16, maxLength: 16 })
  const millis = fc.integer({ min: 0, max: 2 ** 48 - 1 })

  it("lead with the time in milliseconds, then a version 7 UUID's version and variant, the rest random", () => {
    fc.assert(
      fc.property(bytes, millis, (random, time) => {
        const id = hex(timeOrdered(random, time))
        assert.strictEqual(Number.parseInt(id.slice(0, 12), 16), time)
        assert.strictEqual(id[12], "7")
        assert.include("89ab", id[16]!)
        assert.strictEqual(id.slice(13, 16), hex(random).slice(13, 16))
        assert.strictEqual(id.slice(17), hex(random).slice(17))
      }),
      { numRuns: 10_000 }
    )
  })

  it("sort in the order they were made, whatever their random part", () => {
    fc.assert(
      fc.property(bytes, bytes, millis, millis, (a, b, t, u) => {
        fc.pre(t !== u)
        const [earlier, later] = t < u ? [timeOrdered(a, t), timeOrdered(b, u)] : [timeOrdered(b, u), timeOrdered(a, t)]
        assert.isTrue(hex(earlier) < hex(later))
      }),
      { numRuns: 10_000 }
    )
  })

  it.effect("are what the id source makes, in the order it made them", () =>
    Effect.gen(function* () {
      const ids = yield* IdSource
      const first = ids.receivableId()
      // The id source reads the wall clock; the second id is made once it reads a later millisecond.
      const madeAt = Date.now()
      yield* eventually(
        "the wall clock past the first id's millisecond",
        Effect.sync(() => Date.now() > madeAt),
        { interval: Duration.millis(1) }
      )
      const second = ids.receivableId()
      assert.match(first, /^rcv_[0-9a-f]{12}7[0-9a-f]{3}[89ab][0-9a-f]{15}$/)
      assert.isTrue(first < second)
    }).pipe(Effect.provide(RandomIds.layer))
  )
})
