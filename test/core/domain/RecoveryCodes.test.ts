import { assert, describe, it } from "@effect/vitest"
import fc from "fast-check"
import {
  alphabet,
  bytesPerSet,
  codesFromBytes,
  codesPerSet,
  normalize,
  symbolsPerCode
} from "../../../core/accounts/domain/RecoveryCodes.ts"

const setBytes = fc.uint8Array({ minLength: bytesPerSet, maxLength: bytesPerSet })

describe("recovery codes", () => {
  it("a set is ten codes of ten symbols from the alphabet, grouped five and five: 50 bits each", () =>
    fc.assert(
      fc.property(setBytes, (bytes) => {
        const codes = codesFromBytes(bytes)
        assert.strictEqual(codes.length, codesPerSet)
        for (const code of codes) assert.match(code, /^[0-9a-hjkmnp-tv-z]{5}-[0-9a-hjkmnp-tv-z]{5}$/)
        assert.strictEqual(alphabet.length ** symbolsPerCode, 2 ** 50)
      })
    ))

  it("every symbol comes from one byte: distinct bytes modulo 32 give distinct codes", () =>
    fc.assert(
      fc.property(setBytes, fc.nat({ max: bytesPerSet - 1 }), fc.integer({ min: 1, max: 31 }), (bytes, at, by) => {
        const changed = Uint8Array.from(bytes)
        changed[at] = (changed[at]! + by) & 255
        assert.notDeepEqual(codesFromBytes(changed), codesFromBytes(bytes))
      })
    ))

  it("a code reads back whatever its case, spacing and dashes, and i, l, o read as 1, 1, 0", () =>
    fc.assert(
      fc.property(setBytes, fc.nat({ max: codesPerSet - 1 }), fc.boolean(), (bytes, which, upper) => {
        const code = codesFromBytes(bytes)[which]!
        const canonical = code.replace("-", "")
        assert.strictEqual(normalize(code), canonical)
        assert.strictEqual(normalize(` ${upper ? code.toUpperCase() : code.replace("-", " ")} `), canonical)
        assert.strictEqual(normalize(canonical.replace(/1/g, "l").replace(/0/g, "O")), canonical)
      })
    ))

  it("an authenticator app's six digits, or text of another length or alphabet, is no recovery code", () => {
    for (const text of ["123456", "", "abcde-abcd", "abcde-abcdef", "abcde-abcdu", "abcde_abcde"]) {
      assert.isUndefined(normalize(text), text)
    }
  })
})
