import { assert, describe, it } from "@effect/vitest"
import fc from "fast-check"
import { hasMore, limitMaximum, pageWindow } from "../../../core/shared/domain/Pagination.ts"

const slice = (total: number, page: number, limit: number) => {
  const { offset } = pageWindow(page, limit)
  return Array.from({ length: Math.max(0, Math.min(limit, total - offset)) }, (_, i) => offset + i)
}

const resultAndLimit = fc.record({
  total: fc.nat({ max: 5_000 }),
  limit: fc.integer({ min: 1, max: limitMaximum })
})

describe("pagination", () => {
  it("has_more is true exactly when items remain after the page", () =>
    fc.assert(
      fc.property(resultAndLimit, fc.integer({ min: 1, max: 100 }), ({ total, limit }, page) => {
        const shownSoFar = slice(total, page, limit).at(-1)
        const remaining = shownSoFar === undefined ? total > pageWindow(page, limit).offset : shownSoFar + 1 < total
        assert.strictEqual(hasMore(page, limit, total), remaining)
      }),
      { numRuns: 5_000 }
    ))

  it("consecutive pages partition the result without overlap or gap", () =>
    fc.assert(
      fc.property(resultAndLimit, ({ total, limit }) => {
        const seen: Array<number> = []
        let page = 1
        for (;;) {
          seen.push(...slice(total, page, limit))
          if (!hasMore(page, limit, total)) break
          page += 1
        }
        assert.deepStrictEqual(
          seen,
          Array.from({ length: total }, (_, i) => i)
        )
      })
    ))

  it("a page past the end is empty and has no more", () =>
    fc.assert(
      fc.property(resultAndLimit, fc.integer({ min: 1, max: 1_000 }), ({ total, limit }, beyond) => {
        const page = Math.ceil(total / limit) + beyond
        assert.deepStrictEqual(slice(total, page, limit), [])
        assert.isFalse(hasMore(page, limit, total))
      })
    ))

  it("keeps the offset a safe integer for any safe page number", () =>
    fc.assert(
      fc.property(
        fc.integer({ min: 1_001, max: Number.MAX_SAFE_INTEGER }),
        fc.integer({ min: 1, max: limitMaximum }),
        (page, limit) => {
          assert.isTrue(Number.isSafeInteger(pageWindow(page, limit).offset))
          assert.isFalse(hasMore(page, limit, 1_000))
        }
      )
    ))
})
