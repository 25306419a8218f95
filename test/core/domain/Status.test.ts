import { assert, describe, it } from "@effect/vitest"
import fc from "fast-check"
import {
  canonicalStatusText,
  defaultStatusTable,
  makeStatusMapping,
  normalizeStatus,
  type Status,
  statuses
} from "../../../core/domain/Status.ts"

const tableEntries = Object.entries(defaultStatusTable).flatMap(([status, texts]) =>
  texts.map((text) => [text, status as Status] as const)
)

// Rewrites a canonical text the way portals do: any casing, `_` or `-` or runs of blanks between
// words, blanks around it.
const portalSpelling = (canonical: string) =>
  fc
    .tuple(
      fc.array(fc.constantFrom(" ", "_", "-", "  ", " - ", "\t"), {
        minLength: canonical.split(" ").length,
        maxLength: canonical.split(" ").length
      }),
      fc.array(fc.boolean(), { minLength: canonical.length, maxLength: canonical.length }),
      fc.constantFrom("", " ", "  ", "\t")
    )
    .map(([separators, upper, pad]) => {
      const cased = [...canonical].map((char, i) => (upper[i] ? char.toUpperCase() : char.toLowerCase())).join("")
      return pad + cased.split(" ").reduce((text, word, i) => (i === 0 ? word : text + separators[i] + word), "") + pad
    })

describe("normalizeStatus", () => {
  it("is total: every string maps to one of the six statuses", () =>
    fc.assert(
      fc.property(fc.string({ unit: "grapheme", maxLength: 40 }), (text) => {
        assert.include(statuses, normalizeStatus(text))
      }),
      { numRuns: 5_000 }
    ))

  it("maps every typical portal status of the spec's table to its row", () => {
    const spec: Record<Status, ReadonlyArray<string>> = {
      PENDING: ["DRAFT", "SUBMITTED", "IN PROCESS", "PENDING APPROVAL", "OPEN", "UNPAID", "OVERDUE"],
      APPROVED: ["APPROVED", "READY FOR PAYMENT", "PAYMENT IN PROCESS", "SCHEDULED FOR PAYMENT"],
      PAID: ["PAID", "PAID IN FULL", "SETTLED", "CLOSED", "COMPLETED", "MARKED PAID", "RECONCILED"],
      SOLD: ["SOLD", "FACTORED", "ASSIGNED"],
      DISPUTED: ["REJECTED", "CANCELED", "VOIDED", "ON HOLD", "DISPUTED"],
      ACKNOWLEDGED: []
    }
    for (const [status, texts] of Object.entries(spec)) {
      for (const text of texts) assert.strictEqual(normalizeStatus(text), status, text)
    }
  })

  it("follows the spec's mapping examples", () => {
    assert.strictEqual(normalizeStatus("APPROVED FOR PAYMENT"), "APPROVED")
    assert.strictEqual(normalizeStatus("MARKED PAID"), "PAID")
    assert.strictEqual(normalizeStatus("RECONCILED"), "PAID")
    assert.strictEqual(normalizeStatus("SUBMITTED"), "PENDING")
    assert.strictEqual(normalizeStatus("OVERDUE"), "PENDING")
    assert.strictEqual(normalizeStatus("VOIDED"), "DISPUTED")
  })

  it("maps each of the six labels to itself, in any spelling", () =>
    fc.assert(
      fc.property(
        fc.constantFrom(...statuses).chain((status) => portalSpelling(status).map((text) => [status, text] as const)),
        ([status, text]) => assert.strictEqual(normalizeStatus(text), status)
      )
    ))

  it("ignores case, spacing, `_` and `-`", () =>
    fc.assert(
      fc.property(
        fc
          .constantFrom(...tableEntries)
          .chain(([text, status]) => portalSpelling(text).map((v) => [v, status] as const)),
        ([variant, status]) => assert.strictEqual(normalizeStatus(variant), status)
      ),
      { numRuns: 2_000 }
    ))

  it("gives the same status to every spelling of any text", () =>
    fc.assert(
      fc.property(
        fc
          .array(fc.constantFrom("PAID", "NOT", "OPEN", "DISPUTE", "ON", "HOLD", "IN", "PROCESS", "X", "PAYMENT"), {
            minLength: 1,
            maxLength: 5
          })
          .chain((words) => portalSpelling(words.join(" ")).map((variant) => [words.join(" "), variant] as const)),
        ([canonical, variant]) => assert.strictEqual(normalizeStatus(variant), normalizeStatus(canonical))
      )
    ))

  it("reads longer wordings by their known phrases, and only when they agree", () => {
    assert.strictEqual(normalizeStatus("Rejected - duplicate invoice"), "DISPUTED")
    assert.strictEqual(normalizeStatus("Payment in process since Monday"), "APPROVED")
    assert.strictEqual(normalizeStatus("Submitted to buyer"), "PENDING")
    assert.strictEqual(normalizeStatus("Closed - cancelled"), "ACKNOWLEDGED")
  })

  it("trusts no phrase next to a qualifier", () => {
    assert.strictEqual(normalizeStatus("Partially paid"), "ACKNOWLEDGED")
    assert.strictEqual(normalizeStatus("NOT APPROVED"), "ACKNOWLEDGED")
    assert.strictEqual(normalizeStatus("Pre-approved"), "ACKNOWLEDGED")
  })

  it("is ACKNOWLEDGED for texts it does not know", () => {
    assert.strictEqual(normalizeStatus("Awaiting goods receipt"), "ACKNOWLEDGED")
    assert.strictEqual(normalizeStatus(""), "ACKNOWLEDGED")
    assert.strictEqual(normalizeStatus("   "), "ACKNOWLEDGED")
  })

  it("applies the connector's mapping first, in any spelling", () => {
    const mapping = makeStatusMapping({ "Paid-Pending Bank": "APPROVED", "awaiting goods receipt": "PENDING" })
    assert.strictEqual(normalizeStatus("PAID PENDING BANK", mapping), "APPROVED")
    assert.strictEqual(normalizeStatus("paid_pending_bank", mapping), "APPROVED")
    assert.strictEqual(normalizeStatus("Awaiting  Goods  Receipt", mapping), "PENDING")
    assert.strictEqual(normalizeStatus("PAID", mapping), "PAID")
  })

  it("canonical form is idempotent", () =>
    fc.assert(
      fc.property(fc.string(), (text) =>
        assert.strictEqual(canonicalStatusText(canonicalStatusText(text)), canonicalStatusText(text))
      )
    ))
})
