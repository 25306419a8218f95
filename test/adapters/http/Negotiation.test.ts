/**
 * Laws of the transport's pure parts: Accept-Encoding negotiation, If-None-Match matching and
 * CORS origin matching, and that hostile headers cost linear time.
 */
import { assert, describe, it } from "@effect/vitest"
import { ConfigProvider, Effect, Exit } from "effect"
import fc from "fast-check"
import * as Cors from "../../../adapters/http/pipeline/Cors.ts"
import * as ContentCoding from "../../../adapters/http/transport/ContentCoding.ts"
import * as EntityTag from "../../../adapters/http/transport/EntityTag.ts"

const coding = fc.constantFrom("br", "gzip", "identity", "*", "deflate", "x-gzip", "zstd")
const weight = fc.integer({ min: 0, max: 1000 }).map((n) => n / 1000)
const member = fc.record({ coding, weight: fc.option(weight, { nil: undefined }), caps: fc.boolean() })
const field = fc.array(member, { maxLength: 8 })
interface Member {
  readonly coding: string
  readonly weight: number | undefined
  readonly caps: boolean
}
const render = (members: ReadonlyArray<Member>) =>
  members
    .map(
      ({ coding, weight, caps }) =>
        `${caps ? coding.toUpperCase() : coding}${weight === undefined ? "" : `;q=${weight}`}`
    )
    .join(", ")

/** The weight a field gives a coding, as RFC 9110 12.5.3 reads it (best of repeated members). */
const weightIn = (members: ReadonlyArray<{ coding: string; weight: number | undefined }>, name: string) => {
  const named = members.filter((m) => m.coding === name || (name === "gzip" && m.coding === "x-gzip"))
  const star = members.filter((m) => m.coding === "*")
  const best = (list: typeof members) => (list.length === 0 ? undefined : Math.max(...list.map((m) => m.weight ?? 1)))
  return best(named) ?? best(star)
}

describe("Accept-Encoding", () => {
  it("never picks a coding the field refuses or does not name", () =>
    fc.assert(
      fc.property(field, (members) => {
        const chosen = ContentCoding.negotiate(render(members))
        if (chosen !== "identity") assert.isAbove(weightIn(members, chosen) ?? 0, 0)
      })
    ))

  it("picks the acceptable coding of the highest weight, brotli on a tie", () =>
    fc.assert(
      fc.property(field, (members) => {
        const chosen = ContentCoding.negotiate(render(members))
        const br = weightIn(members, "br") ?? 0
        const gzip = weightIn(members, "gzip") ?? 0
        const identity = weightIn(members, "identity")
        const best = Math.max(br, gzip)
        const expected =
          best === 0 || (identity !== undefined && identity > best) ? "identity" : br === best ? "br" : "gzip"
        assert.strictEqual(chosen, expected)
      })
    ))

  it("answers identity without the header, and for an empty one", () => {
    assert.strictEqual(ContentCoding.negotiate(undefined), "identity")
    assert.strictEqual(ContentCoding.negotiate(""), "identity")
  })

  it("ignores a member whose weight is malformed", () =>
    fc.assert(
      fc.property(fc.constantFrom("q=2", "q=0.1234", "q=abc", "q=-1", "q="), (bad) => {
        assert.strictEqual(ContentCoding.negotiate(`br;${bad}, gzip`), "gzip")
      })
    ))
})

const opaque = fc.stringMatching(/^[\x21\x23-\x7e]{0,20}$/)

describe("If-None-Match", () => {
  it("matches a listed tag by the weak comparison, wherever it stands in the list", () =>
    fc.assert(
      fc.property(opaque, fc.array(opaque, { maxLength: 6 }), fc.nat(6), fc.boolean(), (tag, others, at, weak) => {
        const listed = others.filter((other) => other !== tag).map((other) => `"${other}"`)
        listed.splice(Math.min(at, listed.length), 0, `${weak ? "W/" : ""}"${tag}"`)
        assert.isTrue(EntityTag.noneMatch(listed.join(" , "), `"${tag}"`))
      })
    ))

  it("matches no tag the list does not hold, and * always", () =>
    fc.assert(
      fc.property(opaque, fc.array(opaque, { maxLength: 6 }), (tag, others) => {
        const list = others.filter((other) => other !== tag).map((other) => `W/"${other}"`)
        assert.isFalse(EntityTag.noneMatch(list.join(", "), `"${tag}"`))
        assert.isTrue(EntityTag.noneMatch("*", `"${tag}"`))
      })
    ))

  it("tags differ by coding and by any change of the bytes", () =>
    fc.assert(
      fc.property(fc.uint8Array({ minLength: 1 }), fc.nat(), (bytes, at) => {
        const digest = EntityTag.digest(bytes)
        const changed = Uint8Array.from(bytes)
        changed[at % bytes.length] = changed[at % bytes.length]! ^ 1
        assert.notStrictEqual(EntityTag.digest(changed), digest)
        assert.notStrictEqual(EntityTag.of(digest, "br"), EntityTag.of(digest, "gzip"))
        assert.notStrictEqual(EntityTag.of(digest, "identity"), EntityTag.of(digest, "br"))
      })
    ))
})

describe("hostile headers", () => {
  // Quadratic work would take seconds on these; linear takes a few milliseconds.
  const timed = (run: () => void) => {
    const started = performance.now()
    run()
    return performance.now() - started
  }
  it("read a huge Accept-Encoding and thousands of tags in linear time", () => {
    const members = `${",".repeat(200_000)};`
    assert.isBelow(
      timed(() => ContentCoding.negotiate(`${"gzip;a=b,".repeat(20_000)}${members}`)),
      500
    )
    const tags = Array.from({ length: 50_000 }, (_, i) => `W/"${i}"`).join(", ")
    assert.isBelow(
      timed(() => assert.isFalse(EntityTag.noneMatch(tags, '"nope"'))),
      500
    )
    assert.isBelow(
      timed(() => assert.isFalse(EntityTag.noneMatch(`${'"'.repeat(1)}${"x".repeat(500_000)}`, '"x"'))),
      500
    )
  })
})

describe("CORS origins", () => {
  const origin = fc
    .tuple(
      fc.constantFrom("http", "https"),
      fc.domain(),
      fc.option(fc.integer({ min: 1, max: 65535 }), { nil: undefined })
    )
    .map(([scheme, host, port]) => new URL(`${scheme}://${host}${port === undefined ? "" : `:${port}`}`).origin)

  it("allows exactly the listed origins", () =>
    fc.assert(
      fc.property(fc.uniqueArray(origin, { minLength: 1, maxLength: 5 }), origin, (listed, other) => {
        const policy = Cors.policyOf(listed)
        for (const o of listed) assert.strictEqual(Cors.allowOrigin(policy, o), o)
        if (!listed.includes(other)) assert.isUndefined(Cors.allowOrigin(policy, other))
        for (const near of [`${listed[0]}/`, `${listed[0]}.evil.com`, listed[0]!.toUpperCase(), `x${listed[0]}`]) {
          if (!listed.includes(near)) assert.isUndefined(Cors.allowOrigin(policy, near))
        }
      })
    ))

  it("allows nothing when off, and any origin as * when set to *", () =>
    fc.assert(
      fc.property(origin, (o) => {
        assert.isUndefined(Cors.allowOrigin(Cors.policyOf([]), o))
        assert.strictEqual(Cors.allowOrigin(Cors.policyOf(["*"]), o), "*")
        assert.strictEqual(Cors.allowOrigin(Cors.policyOf(["*"]), undefined), "*")
        assert.isUndefined(Cors.allowOrigin(Cors.policyOf([o]), undefined))
        assert.isUndefined(
          Cors.preflight(Cors.policyOf([]), "OPTIONS", { origin: o, "access-control-request-method": "GET" })
        )
      })
    ))

  const read = (value: string) =>
    Effect.runSyncExit(
      Effect.provide(Cors.settings, ConfigProvider.layer(ConfigProvider.fromUnknown({ CORS_ORIGINS: value })))
    )

  it("accepts origins as browsers send them, and refuses anything else at start", () => {
    assert.isTrue(Exit.isSuccess(read("https://app.example.com, http://localhost:5173")))
    assert.isTrue(Exit.isSuccess(read("*")))
    for (const bad of [
      "https://app.example.com/",
      "app.example.com",
      "https://App.example.com",
      "ftp://x.example",
      "*,https://a.example",
      "https://a.example/path"
    ]) {
      assert.isTrue(Exit.isFailure(read(bad)), bad)
    }
  })
})
