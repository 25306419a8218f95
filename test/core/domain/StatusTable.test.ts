import { readFileSync } from "node:fs"
import { assert, describe, it } from "@effect/vitest"
import { renderStatusTable, statusTablePath } from "../../../bench/status/table.ts"

describe("docs/status-table.md", () => {
  it("is exactly what the generator makes of the vocabulary (run node bench/status/table.ts after editing it)", () => {
    assert.strictEqual(readFileSync(statusTablePath, "utf8"), renderStatusTable())
  })
})
