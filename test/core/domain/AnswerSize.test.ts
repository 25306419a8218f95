/** A receivable's size on the wire is counted in UTF-8 bytes, as the answer is sent. */
import { assert, describe, it } from "@effect/vitest"
import fc from "fast-check"
import { utf8Bytes } from "../../../core/receivables/domain/AnswerSize.ts"

describe("utf8Bytes", () => {
  it("is the length of the text encoded as UTF-8, whatever its characters", () =>
    fc.assert(
      fc.property(fc.string({ unit: "grapheme", maxLength: 200 }), (text) => {
        assert.strictEqual(utf8Bytes(text), new TextEncoder().encode(text).length)
      })
    ))
})
