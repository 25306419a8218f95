/**
 * The arithmetic of leased shares in flight, over any sequence of grants, renewals, releases and
 * the passing of time at several processes: the live shares of an owner never add up past its cap,
 * a process alone gets all it asks up to the cap, and a lease that ended is worth nothing.
 */
import { assert, describe, it } from "@effect/vitest"
import fc from "fast-check"
import * as Shares from "../../../core/access/domain/InFlightShares.ts"

const leaseMillis = 5_000
const owners = ["key", "organization"] as const
const caps = { key: 4, organization: 7 }

const step = fc.oneof(
  fc.record({
    kind: fc.constant("grant" as const),
    process: fc.integer({ min: 0, max: 3 }),
    key: fc.integer({ min: 0, max: 6 }),
    organization: fc.integer({ min: 0, max: 9 }),
    // What waits beside the admission: wanted on top of what it needs.
    extra: fc.integer({ min: 0, max: 4 })
  }),
  fc.record({
    kind: fc.constant("renew" as const),
    process: fc.integer({ min: 0, max: 3 }),
    key: fc.integer({ min: 0, max: 6 }),
    organization: fc.integer({ min: 0, max: 9 })
  }),
  fc.record({ kind: fc.constant("release" as const), process: fc.integer({ min: 0, max: 3 }) }),
  fc.record({ kind: fc.constant("time" as const), millis: fc.integer({ min: 0, max: 2 * leaseMillis }) })
)

describe("InFlightShares", () => {
  it("over any sequence at 4 processes, an owner's live shares never add up past its cap", () => {
    fc.assert(
      fc.property(fc.array(step, { maxLength: 80 }), (steps) => {
        let table: Shares.ShareTable = []
        let now = 0
        for (const s of steps) {
          const process = "process" in s ? `p${s.process}` : ""
          if (s.kind === "grant") {
            const before = table
            const asks = owners.map((owner) => ({ owner, need: s[owner], want: s[owner] + s.extra, cap: caps[owner] }))
            const next = Shares.grant(table, { process, asks, now, leaseMillis })
            table = next.table
            owners.forEach((owner, i) => {
              const others = Shares.liveTotal(Shares.release(before, process), owner, now)
              const left = Math.max(0, caps[owner] - others)
              // What is wanted as far as the others leave, when they leave what is needed of both
              // caps; less than what is needed otherwise.
              if (next.short === undefined) assert.strictEqual(next.granted[i], Math.min(s[owner] + s.extra, left))
              else assert.isAtMost(next.granted[i]!, Math.max(0, s[owner] - 1))
              assert.isAtMost(next.granted[i]!, left)
            })
          } else if (s.kind === "renew") {
            const held = (owner: string) =>
              table.find((l) => l.process === process && l.owner === owner && l.expiresAt > now)?.share ?? 0
            const before = { key: held("key"), organization: held("organization") }
            const next = Shares.renew(table, process, new Map(owners.map((o) => [o, s[o]])), now, leaseMillis)
            table = next.table
            // A renewal only shrinks, and keeps nothing whose lease ended.
            for (const owner of owners) assert.strictEqual(next.held.get(owner) ?? 0, Math.min(before[owner], s[owner]))
          } else if (s.kind === "release") table = Shares.release(table, process)
          else now += s.millis
          for (const owner of owners) assert.isAtMost(Shares.liveTotal(table, owner, now), caps[owner])
        }
      }),
      { numRuns: 500 }
    )
  })

  it("a process alone is granted what it asks, up to the cap; once its lease ends, another gets it all", () => {
    fc.assert(
      fc.property(fc.integer({ min: 1, max: 50 }), fc.integer({ min: 0, max: 60 }), (cap, want) => {
        const asks = [{ owner: "key", need: want, want, cap }]
        const alone = Shares.grant([], { process: "one", asks, now: 0, leaseMillis })
        assert.strictEqual(alone.granted[0], Math.min(want, cap))
        const before = Shares.grant(alone.table, {
          process: "two",
          asks: [{ owner: "key", need: cap, want: cap, cap }],
          now: leaseMillis - 1,
          leaseMillis
        })
        assert.strictEqual(Shares.liveTotal(before.table, "key", leaseMillis - 1), cap)
        const after = Shares.grant(alone.table, {
          process: "two",
          asks: [{ owner: "key", need: cap, want: cap, cap }],
          now: leaseMillis,
          leaseMillis
        })
        assert.strictEqual(after.granted[0], cap)
      })
    )
  })
})
