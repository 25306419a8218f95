/**
 * The dashboard's rules as laws: when a session is over, when sign-in is throttled and for how
 * long, what a token, a password and an address must be.
 */
import { assert, describe, it } from "@effect/vitest"
import { Duration } from "effect"
import fc from "fast-check"
import {
  constantTimeEqual,
  isWellFormedToken,
  normalizeEmail,
  pairThrottle,
  passwordProblem,
  recentFailures,
  sessionPolicy,
  sessionState,
  throttledAddress,
  throttledForSeconds,
  tokenBytes,
  tokenFromBytes
} from "../../../core/accounts/domain/Dashboard.ts"

const idle = Duration.toMillis(sessionPolicy.idle)
const absolute = Duration.toMillis(sessionPolicy.absolute)
const window = Duration.toMillis(pairThrottle.window)

describe("sessions", () => {
  it("a session is active exactly while it is younger than the absolute limit and used within the idle limit", () =>
    fc.assert(
      fc.property(fc.nat(2 * absolute), fc.nat(2 * absolute), (sinceCreated, sinceSeen) => {
        const now = 10 * absolute
        const session = {
          createdAtMillis: now - sinceCreated,
          lastSeenAtMillis: now - Math.min(sinceSeen, sinceCreated)
        }
        const state = sessionState(session, now)
        const seen = Math.min(sinceSeen, sinceCreated)
        assert.strictEqual(state === "active", sinceCreated < absolute && seen < idle)
        if (sinceCreated >= absolute) assert.strictEqual(state, "expired")
      })
    ))

  it("using a session never extends it past its absolute limit", () =>
    fc.assert(
      fc.property(fc.array(fc.nat(idle - 1), { minLength: 1, maxLength: 200 }), (gaps) => {
        let now = 0
        let lastSeen = 0
        for (const gap of gaps) {
          now += gap
          if (sessionState({ createdAtMillis: 0, lastSeenAtMillis: lastSeen }, now) !== "active") {
            assert.isAtLeast(now, absolute)
            return
          }
          lastSeen = now
        }
        assert.isBelow(now, absolute)
      })
    ))
})

describe("sign-in throttling", () => {
  const failures = fc.array(fc.integer({ min: 0, max: 2 * window }), { maxLength: 12 })

  it("attempts are allowed exactly while fewer failures than the limit lie within the window", () =>
    fc.assert(
      fc.property(failures, fc.integer({ min: 0, max: 2 * window }), (times, now) => {
        const counted = recentFailures(times, now, pairThrottle).length
        assert.strictEqual(throttledForSeconds(times, now, pairThrottle) === 0, counted < pairThrottle.failures)
      })
    ))

  it("once the wait is over, an attempt is allowed, and not a second earlier", () =>
    fc.assert(
      fc.property(failures, (ago) => {
        // Failures lie in the past of the moment asked about.
        const now = 2 * window
        const times = ago.map((age) => now - age)
        const wait = throttledForSeconds(times, now, pairThrottle)
        if (wait === 0) return
        assert.strictEqual(throttledForSeconds(times, now + wait * 1000, pairThrottle), 0)
        assert.isAbove(throttledForSeconds(times, now + (wait - 1) * 1000, pairThrottle), 0)
      })
    ))

  const hextet = fc.integer({ min: 0, max: 0xffff }).map((n) => n.toString(16))
  const ipv6 = fc.array(hextet, { minLength: 8, maxLength: 8 })

  it("IPv6 clients count by their /64 network, however the address is written; IPv4 clients by their address", () =>
    fc.assert(
      fc.property(ipv6, ipv6, (a, b) => {
        const host = (groups: ReadonlyArray<string>) => groups.join(":")
        const padded = (groups: ReadonlyArray<string>) => groups.map((g) => g.padStart(4, "0").toUpperCase()).join(":")
        const sameNetwork = [...a.slice(0, 4), ...b.slice(4)]
        assert.strictEqual(throttledAddress(host(a)), throttledAddress(padded(sameNetwork)))
        assert.strictEqual(
          throttledAddress(host(a)) === throttledAddress(host(b)),
          a.slice(0, 4).every((group, i) => Number.parseInt(group, 16) === Number.parseInt(b[i]!, 16))
        )
      })
    ))

  it("compressed and dotted IPv6 forms name the same network; IPv4 addresses stay themselves", () => {
    assert.strictEqual(throttledAddress("2001:db8:1:2::1"), "2001:db8:1:2::/64")
    assert.strictEqual(throttledAddress("2001:0DB8:0001:0002:ffff:ffff:192.0.2.1"), "2001:db8:1:2::/64")
    assert.strictEqual(throttledAddress("2001:db8::"), "2001:db8:0:0::/64")
    assert.strictEqual(throttledAddress("::1"), "0:0:0:0::/64")
    assert.strictEqual(throttledAddress("fe80::1%eth0"), "fe80:0:0:0::/64")
    assert.strictEqual(throttledAddress("198.51.100.4"), "198.51.100.4")
    assert.notStrictEqual(throttledAddress("2001:db8:1:2::1"), throttledAddress("2001:db8:1:3::1"))
  })
})

describe("tokens, passwords and addresses", () => {
  it("a token from 32 random bytes is well formed, and 256 bits survive in it", () =>
    fc.assert(
      fc.property(fc.uint8Array({ minLength: tokenBytes, maxLength: tokenBytes }), (bytes) => {
        const token = tokenFromBytes(bytes)
        assert.isTrue(isWellFormedToken(token))
        assert.strictEqual(Buffer.from(token, "base64url").equals(Buffer.from(bytes)), true)
      })
    ))

  it("a token cut short, lengthened or carrying a character of a path or a query is refused", () =>
    fc.assert(
      fc.property(
        fc.uint8Array({ minLength: tokenBytes, maxLength: tokenBytes }),
        fc.nat(42),
        fc.constantFrom("/", ".", "%", "?", ";", "=", "+", " "),
        (bytes, at, foreign) => {
          const token = tokenFromBytes(bytes)
          assert.isFalse(isWellFormedToken(token.slice(1)))
          assert.isFalse(isWellFormedToken(`${token}A`))
          assert.isFalse(isWellFormedToken(`${token.slice(0, at)}${foreign}${token.slice(at + 1)}`))
        }
      )
    ))

  it("a password is accepted exactly at 12 to 256 characters", () =>
    fc.assert(
      fc.property(fc.string({ unit: "grapheme-ascii", maxLength: 300 }), (password) => {
        assert.strictEqual(passwordProblem(password) === undefined, password.length >= 12 && password.length <= 256)
      })
    ))

  it("addresses are compared trimmed and in lower case", () =>
    fc.assert(
      fc.property(fc.emailAddress(), fc.constantFrom("", " ", "\t"), (email, space) => {
        const normalized = normalizeEmail(`${space}${email.toUpperCase()}${space}`)
        assert.strictEqual(normalized, normalizeEmail(email))
        if (normalized !== undefined) assert.strictEqual(normalized, normalized.toLowerCase())
      })
    ))

  it("secrets compare equal exactly when they are", () =>
    fc.assert(
      fc.property(fc.string(), fc.string(), (a, b) => {
        assert.strictEqual(constantTimeEqual(a, b), a === b)
        assert.isTrue(constantTimeEqual(a, a))
      })
    ))
})
