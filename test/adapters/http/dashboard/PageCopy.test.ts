import { describe, expect, it } from "vitest"
import { copySlips } from "../../../support/PageCopy.ts"

describe("a page's copy", () => {
  it("finds a count of one with a plural noun", () => {
    expect(copySlips("The last 1 runs, oldest first")).toHaveLength(1)
    expect(copySlips("Found: 1 receivables match; 1 to 1 shown")).toHaveLength(1)
  })

  it("passes counts that fit, and ones that are not counts", () => {
    expect(
      copySlips("1 run; 2 runs; 1 of 3 pairs; 1 is due; 11 runs; 2026-11-01 runs; 0.1 days; 1 status; v1 keys")
    ).toEqual([])
  })
})
