import { assert, describe, it } from "@effect/vitest"
import { randomSource } from "../../../adapters/keys/RandomIds.ts"

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
