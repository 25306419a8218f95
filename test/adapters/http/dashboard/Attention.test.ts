/**
 * What the overview puts first, as laws over generated pairs: every concern a pair has is listed
 * once, none it has not; the most urgent come first; a paused pair is never called stale, and a
 * healthy, punctual pair without quarantines is never listed.
 */
import { assert, describe, it } from "@effect/vitest"
import { DateTime, Duration } from "effect"
import fc from "fast-check"
import { needingAttention, staleAfter } from "../../../../adapters/http/dashboard/receivables/Attention.ts"
import type { Integration } from "../../../../core/receivables/domain/Resources.ts"

const now = DateTime.makeUnsafe("2026-11-26T12:00:00Z")
const minutes = (n: number) => DateTime.addDuration(now, Duration.minutes(n))

const arbitraryPair = fc
  .record({
    id: fc.uuid(),
    state: fc.constantFrom("active", "paused", "failing"),
    // From three hours ago to an hour ahead: either side of the stale line.
    nextInMinutes: fc.option(fc.integer({ min: -180, max: 60 }), { nil: null }),
    quarantined: fc.option(fc.nat({ max: 5 }), { nil: null })
  })
  .map(
    ({ id, state, nextInMinutes, quarantined }) =>
      ({
        id,
        object: "integration",
        vendor: { id: `v-${id}`, name: "Vendor" },
        debtor: { id: `d-${id}`, name: "Debtor" },
        connector: "simulator",
        state,
        lastSync:
          quarantined === null
            ? null
            : {
                startedAt: minutes(-10),
                finishedAt: minutes(-9),
                outcome: state === "failing" ? "failed" : "succeeded",
                created: 0,
                updated: 0,
                unchanged: 0,
                quarantined,
                error: null,
                errorClass: null
              },
        estimatedNextUpdateAt: nextInMinutes === null ? null : minutes(nextInMinutes)
      }) as unknown as Integration
  )

const order = ["failing", "stale", "paused", "quarantined"]

describe("needingAttention", () => {
  it("lists each concern of each pair once, most urgent first, and nothing for a healthy pair", () =>
    fc.assert(
      fc.property(fc.array(arbitraryPair, { maxLength: 12 }), (pairs) => {
        const listed = needingAttention(pairs, now)
        const ranks = listed.map((item) => order.indexOf(item.concern))
        assert.deepStrictEqual(
          ranks,
          ranks.toSorted((a, b) => a - b)
        )
        for (const pair of pairs) {
          const concerns = listed.filter((item) => item.integration === pair).map((item) => item.concern)
          const next = pair.estimatedNextUpdateAt
          const overdue = next !== null && DateTime.isLessThan(DateTime.addDuration(next, staleAfter), now)
          const expected = [
            ...(pair.state === "failing" ? ["failing"] : []),
            ...(pair.state === "active" && overdue ? ["stale"] : []),
            ...(pair.state === "paused" ? ["paused"] : []),
            ...((pair.lastSync?.quarantined ?? 0) > 0 ? ["quarantined"] : [])
          ]
          assert.deepStrictEqual(concerns, expected)
        }
      })
    ))

  it("calls a pair stale only past the hour's grace", () => {
    const pair = (next: DateTime.Utc) =>
      ({ state: "active", lastSync: null, estimatedNextUpdateAt: next }) as unknown as Integration
    assert.deepStrictEqual(needingAttention([pair(minutes(-60))], now), [])
    assert.deepStrictEqual(
      needingAttention([pair(minutes(-61))], now).map((item) => item.concern),
      ["stale"]
    )
  })
})
