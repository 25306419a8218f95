import { assert, describe, it } from "@effect/vitest"
import fc from "fast-check"
import {
  crc32,
  displayStart,
  isWellFormedApiKey,
  makeApiKey,
  prefix,
  secretBytes
} from "../../../core/domain/ApiKey.ts"

const random = fc.uint8Array({ minLength: secretBytes, maxLength: secretBytes })
const brand = fc.stringMatching(/^[a-z][a-z0-9]{1,14}$/)

describe("API key format", () => {
  it("CRC-32 matches the standard check value (golden)", () => {
    assert.strictEqual(crc32("123456789"), 0xcbf43926)
    assert.strictEqual(crc32(""), 0)
  })

  it("a made key is well formed for its brand, and only for it", () =>
    fc.assert(
      fc.property(brand, brand, random, (own, other, bytes) => {
        const key = makeApiKey(own, bytes)
        assert.isTrue(key.startsWith(prefix(own)))
        assert.isTrue(isWellFormedApiKey(own, key))
        if (other !== own) assert.isFalse(isWellFormedApiKey(other, key))
      })
    ))

  it("different randomness makes different keys, of a fixed length", () =>
    fc.assert(
      fc.property(random, random, (a, b) => {
        const [ka, kb] = [makeApiKey("pr", a), makeApiKey("pr", b)]
        assert.strictEqual(ka.length, "pr_live_".length + 39)
        assert.strictEqual(ka === kb, Buffer.from(a).equals(Buffer.from(b)))
      })
    ))

  it("any one changed character, truncation or extension is refused by the checksum or the form", () =>
    fc.assert(
      fc.property(
        random,
        fc.nat(),
        fc.constantFrom(..."0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz_-+/= "),
        (bytes, at, char) => {
          const key = makeApiKey("pr", bytes)
          const i = at % key.length
          if (key[i] !== char) assert.isFalse(isWellFormedApiKey("pr", key.slice(0, i) + char + key.slice(i + 1)))
          assert.isFalse(isWellFormedApiKey("pr", key.slice(0, i)))
          assert.isFalse(isWellFormedApiKey("pr", key + char))
        }
      ),
      { numRuns: 5_000 }
    ))

  it("arbitrary strings are not keys", () =>
    fc.assert(fc.property(fc.string(), (text) => assert.isFalse(isWellFormedApiKey("pr", text)))))

  it("the display start is the prefix and four characters, not enough to use the key", () => {
    const key = makeApiKey("pr", new Uint8Array(secretBytes).fill(7))
    assert.strictEqual(displayStart("pr", key), key.slice(0, 12))
    assert.isFalse(isWellFormedApiKey("pr", displayStart("pr", key)))
  })
})
