import { assert, describe, it } from "@effect/vitest"
import fc from "fast-check"
import {
  crc32,
  displayStart,
  isKeySecret,
  isWellFormedApiKey,
  makeApiKey,
  prefix,
  redactKeys,
  secretBytes
} from "../../../core/access/domain/ApiKey.ts"

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

// Percent-encodes the characters `picks` selects (cycling), then encodes the result `depth - 1` more times.
const encode = (text: string, picks: ReadonlyArray<boolean>, depth: number) => {
  let out = [...text]
    .map((c, i) => (picks[i % picks.length] ? `%${c.charCodeAt(0).toString(16).padStart(2, "0")}` : c))
    .join("")
  for (let d = 1; d < depth; d++) out = out.replaceAll("%", "%25")
  return out
}

const fullyDecoded = (text: string) => {
  let decoded = text
  for (let i = 0; i < 6; i++)
    decoded = decoded.replace(/%([0-9A-Fa-f]{2})/g, (_, h: string) => String.fromCharCode(Number.parseInt(h, 16)))
  return decoded
}

describe("redactKeys", () => {
  it("no key survives in a path or query, however often it was percent-encoded", () =>
    fc.assert(
      fc.property(
        brand,
        random,
        fc.array(fc.boolean(), { minLength: 1, maxLength: 8 }),
        fc.integer({ min: 1, max: 3 }),
        fc.string({ maxLength: 20 }).map(encodeURIComponent),
        fc.string({ maxLength: 20 }).map(encodeURIComponent),
        (b, bytes, picks, depth, before, after) => {
          const key = makeApiKey(b, bytes)
          const secret = key.slice(prefix(b).length)
          const text = `${before}${encode(key, picks, depth)}${after}`
          assert.notInclude(fullyDecoded(redactKeys(text)), secret)
        }
      )
    ))

  it("keeps the text as received around a key encoded once, and texts without a key whole", () => {
    assert.strictEqual(redactKeys("api_key=pr%5Flive%5Fabc123&limit=5"), "api_key=pr%5Flive%5F[redacted]&limit=5")
    assert.strictEqual(redactKeys("/v1/receivables/pr_live_abc"), "/v1/receivables/pr_live_[redacted]")
    assert.strictEqual(redactKeys("verified_since=all&limit=5"), "verified_since=all&limit=5")
    assert.strictEqual(redactKeys("x=pr%255Flive%255Fabc"), "[redacted: an encoded key]")
  })

  // The two forms a probe got past the redaction: the secret without its prefix, and the prefix in capitals.
  const escapedForms = (b: string, key: string): ReadonlyArray<string> => {
    const secret = key.slice(prefix(b).length)
    return [secret, `${prefix(b).toUpperCase()}${secret}`, `${b}-live-${secret}`, encodeURIComponent(secret)]
  }

  it("a secret without its prefix, or behind a prefix in capitals, is redacted given the brand", () =>
    fc.assert(
      fc.property(
        brand,
        random,
        fc.constantFrom("/v1/receivables/", "/x/", "key=", "a=1&token=", "/v1/vendors;"),
        fc.constantFrom("", "/", "&limit=5", ".", ")"),
        (b, bytes, before, after) => {
          const key = makeApiKey(b, bytes)
          const secret = key.slice(prefix(b).length)
          for (const form of escapedForms(b, key)) {
            const shown = redactKeys(`${before}${form}${after}`, b)
            assert.notInclude(fullyDecoded(shown), secret.slice(0, 33), form)
            assert.include(shown, "[redacted]")
          }
        }
      )
    ))

  it("a secret with letters or digits stuck to it, before or after, is redacted given the brand", () =>
    fc.assert(
      fc.property(
        brand,
        random,
        fc.stringMatching(/^[0-9A-Za-z]{0,6}$/),
        fc.stringMatching(/^[0-9A-Za-z]{0,6}$/),
        (b, bytes, stuckBefore, stuckAfter) => {
          fc.pre(stuckBefore.length + stuckAfter.length > 0)
          const secret = makeApiKey(b, bytes).slice(prefix(b).length)
          const shown = redactKeys(`q=${stuckBefore}${secret}${stuckAfter}&limit=5`, b)
          assert.notInclude(fullyDecoded(shown), secret.slice(0, 33))
          // A few characters stuck to it stay; a longer run goes whole.
          assert.strictEqual(
            shown,
            stuckBefore.length + stuckAfter.length <= 3
              ? `q=${stuckBefore}[redacted]${stuckAfter}&limit=5`
              : "q=[redacted]&limit=5"
          )
        }
      )
    ))

  it("a run of 39 letters and digits whose checksum does not hold is left as it is", () =>
    fc.assert(
      fc.property(brand, fc.stringMatching(/^[0-9A-Za-z]{39}$/), (b, token) => {
        fc.pre(!isKeySecret(b, token))
        assert.strictEqual(redactKeys(`/v1/receivables/${token}`, b), `/v1/receivables/${token}`)
      })
    ))

  it("leaves texts without a secret exactly as received", () =>
    fc.assert(
      fc.property(fc.string({ maxLength: 80 }), (text) => {
        fc.pre(!/_live_/i.test(fullyDecoded(text)))
        assert.strictEqual(redactKeys(text, "pr"), text)
      })
    ))
})
