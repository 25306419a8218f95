/**
 * The outbound policy (SSRF): a table of the forms an address hides in, properties that every
 * textual form of an IPv4 address reads as the WHATWG URL parser reads it, and that every form of
 * a refused address is refused.
 */
import { assert, describe, it } from "@effect/vitest"
import fc from "fast-check"
import {
  type Allowance,
  allowedByOperator,
  isPublic,
  noAllowance,
  parseAddress,
  parseAllowance,
  parseIpv4,
  urlProblem
} from "../../adapters/webhooks/OutboundPolicy.ts"

const refused = [
  "127.0.0.1",
  "127.1",
  "0x7f000001",
  "2130706433",
  "017700000001",
  "0177.0.0.1",
  "0x7f.1",
  "[::ffff:127.0.0.1]",
  "[::ffff:7f00:1]",
  "[::127.0.0.1]",
  "0.0.0.0",
  "0",
  "[::1]",
  "[::]",
  "[0:0:0:0:0:0:0:1]",
  "169.254.169.254",
  "[fd00:ec2::254]",
  "100.100.100.200",
  "10.0.0.1",
  "172.16.0.1",
  "172.31.255.255",
  "192.168.1.1",
  "100.64.0.1",
  "[fe80::1]",
  "[64:ff9b::7f00:1]",
  "[2002:7f00:1::]",
  "224.0.0.1",
  "255.255.255.255",
  "198.18.0.1"
]

const accepted = ["93.184.216.34", "8.8.8.8", "172.32.0.1", "[2606:4700:4700::1111]", "[::ffff:8.8.8.8]", "example.com"]

describe("the outbound policy", () => {
  for (const host of refused) {
    it(`refuses https://${host}/`, () => {
      assert.isString(urlProblem(noAllowance, `https://${host}/hooks`))
    })
  }

  for (const host of accepted) {
    it(`accepts https://${host}/`, () => {
      assert.isUndefined(urlProblem(noAllowance, `https://${host}/hooks`))
    })
  }

  it("refuses http, other schemes, credentials and what is no URL", () => {
    for (const url of [
      "http://example.com/",
      "ftp://example.com/",
      "https://user:pw@example.com/",
      "example.com",
      "https://"
    ]) {
      assert.isString(urlProblem(noAllowance, url), url)
    }
  })

  it("an operator's allowance admits its names and ranges on their ports, over http too, and nothing else", () => {
    const allowance = parseAllowance("hooks.internal:80, 127.0.0.1:8080, 10.1.0.0/16:443,[fd00::/8]:8000-8099")
    assert.notStrictEqual(typeof allowance, "string")
    if (typeof allowance === "string") return
    assert.isUndefined(urlProblem(allowance, "http://127.0.0.1:8080/x"))
    assert.isUndefined(urlProblem(allowance, "http://127.1:8080/x"))
    assert.isUndefined(urlProblem(allowance, "https://10.1.2.3/x"))
    assert.isUndefined(urlProblem(allowance, "http://HOOKS.internal/x"))
    assert.isUndefined(urlProblem(allowance, "http://[fd00::1]:8050/x"))
    assert.isString(urlProblem(allowance, "https://10.2.0.1/x"))
    assert.isString(urlProblem(allowance, "http://127.0.0.2:8080/x"))
    assert.isString(urlProblem(allowance, "http://example.com/x"))
    // The same hosts on ports not named: refused, saying so.
    assert.strictEqual(
      urlProblem(allowance, "http://127.0.0.1:5432/x"),
      "port 5432 of 127.0.0.1 is not open to webhooks"
    )
    assert.strictEqual(
      urlProblem(allowance, "https://10.1.2.3:8443/x"),
      "port 8443 of 10.1.2.3 is not open to webhooks"
    )
    assert.isString(urlProblem(allowance, "http://hooks.internal:81/x"))
    assert.isString(urlProblem(allowance, "http://[fd00::1]:8100/x"))
  })

  it("an entry names a port or a range of ports: the old form, a bare host, is refused saying how to write it", () => {
    assert.strictEqual(
      parseAllowance("hooks.internal:443, 127.0.0.1"),
      '"127.0.0.1" names no port: write host:port or host:first-last (127.0.0.1:8080, hooks.internal:8000-8099)'
    )
    assert.match(parseAllowance("hooks.internal") as string, /names no port/)
    assert.match(parseAllowance("10.0.0.0/8") as string, /names no port/)
    for (const bad of [
      "10.0.0.0/33:80",
      "not a host!:80",
      "h:0",
      "h:65536",
      "h:90-80",
      "h:1-2-3",
      "h:",
      "::1:80",
      "[h]:80"
    ]) {
      assert.isString(parseAllowance(bad), bad)
    }
    assert.deepStrictEqual(parseAllowance(""), noAllowance)
  })

  it("a host allowed on a range of ports is allowed on each of them and on no other", () =>
    fc.assert(
      fc.property(
        fc.integer({ min: 1, max: 65535 }),
        fc.integer({ min: 1, max: 65535 }),
        fc.integer({ min: 1, max: 65535 }),
        (a, b, port) => {
          const [first, last] = a <= b ? [a, b] : [b, a]
          const allowance = parseAllowance(`10.0.0.0/8:${first}-${last}`) as Allowance
          const within = port >= first && port <= last
          assert.strictEqual(urlProblem(allowance, `http://10.9.8.7:${port}/`) === undefined, within)
          assert.strictEqual(allowedByOperator(allowance, "10.9.8.7", port, parseAddress("10.9.8.7")), within)
        }
      )
    ))

  const ipv4 = fc.integer({ min: 0, max: 2 ** 32 - 1 })
  const dotted = (v: number) => [v >>> 24, (v >>> 16) & 255, (v >>> 8) & 255, v & 255].join(".")
  const forms = (v: number): ReadonlyArray<string> => {
    const [a, b, c, d] = [v >>> 24, (v >>> 16) & 255, (v >>> 8) & 255, v & 255]
    return [
      dotted(v),
      String(v),
      `0x${v.toString(16)}`,
      `0${v.toString(8)}`,
      `${a}.${(b << 16) | (c << 8) | d}`,
      `${a}.${b}.${(c << 8) | d}`,
      `0x${a.toString(16)}.0${b.toString(8)}.${c}.0x${d.toString(16)}`,
      `[::ffff:${dotted(v)}]`,
      `[::ffff:${((a << 8) | b).toString(16)}:${((c << 8) | d).toString(16)}]`
    ]
  }

  it("every form of an IPv4 address reads as the WHATWG URL parser reads it", () =>
    fc.assert(
      fc.property(ipv4, (v) => {
        for (const form of forms(v).slice(0, 7)) {
          assert.strictEqual(new URL(`https://${form}/`).hostname, dotted(v), form)
          assert.strictEqual(parseIpv4(form)?.value, BigInt(v), form)
        }
      })
    ))

  it("every form of an address is judged as the address is", () =>
    fc.assert(
      fc.property(ipv4, (v) => {
        const verdict = isPublic(parseAddress(dotted(v))!)
        for (const form of forms(v)) {
          assert.strictEqual(urlProblem(noAllowance, `https://${form}/`) === undefined, verdict, form)
        }
      })
    ))

  it("every loopback, private and link-local address is refused in every form", () =>
    fc.assert(
      fc.property(
        fc.oneof(
          fc.integer({ min: 0x7f000000, max: 0x7fffffff }),
          fc.integer({ min: 0x0a000000, max: 0x0affffff }),
          fc.integer({ min: 0xc0a80000, max: 0xc0a8ffff }),
          fc.integer({ min: 0xa9fe0000, max: 0xa9feffff }),
          fc.integer({ min: 0, max: 0x00ffffff })
        ),
        (v) => {
          for (const form of forms(v)) assert.isString(urlProblem(noAllowance, `https://${form}/`), form)
        }
      )
    ))
})
