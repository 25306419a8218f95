import { assert, describe, it } from "@effect/vitest"
import { randomSource } from "../../../adapters/keys/RandomIds.ts"

describe("pooled randomness", () => {
  it("hands out 16 fresh bytes per call across refills, never the same bytes twice", () => {
    // A pool of 64 bytes: four ids, then a refill, many times over.
    const next = randomSource(16, 64)
    const seen = new Set<string>()
    for (let i = 0; i < 2_000; i++) {
      const bytes = next()
      assert.strictEqual(bytes.length, 16)
      seen.add(bytes.toString("hex"))
    }
    assert.strictEqual(seen.size, 2_000)
  })

  it("hands out any size, a pool that is not a multiple of it included", () => {
    const next = randomSource(12, 64)
    const seen = new Set<string>()
    for (let i = 0; i < 2_000; i++) {
      const bytes = next()
      assert.strictEqual(bytes.length, 12)
      seen.add(bytes.toString("hex"))
    }
    assert.strictEqual(seen.size, 2_000)
  })

  it("gives each caller its own bytes: refilling the pool does not change ids already made", () => {
    const next = randomSource(16, 64)
    const first = next()
    const before = first.toString("hex")
    for (let i = 0; i < 8; i++) next()
    assert.strictEqual(first.toString("hex"), before)
  })
})
