/**
 * The coded statuses of e-invoicing networks (the Peppol Invoice Response, the French CDAR
 * lifecycle), mapped by code: only the paid codes can ever be `PAID`, never an acceptance; and of a debtor's
 * responses about one invoice the latest counts, whatever order they are read in.
 */
import { assert, describe, it } from "@effect/vitest"
import fc from "fast-check"
import * as French from "../../../adapters/portals/fr-lifecycle/LifecycleCodes.ts"
import * as Peppol from "../../../adapters/portals/peppol/ResponseCodes.ts"
import { codeOfRank, idNumber, latestOf, type Response } from "../../../adapters/portals/Responses.ts"
import { normalizeStatus } from "../../../core/receivables/domain/Status.ts"

const peppolCodes = Object.keys(Peppol.responseCodes) as ReadonlyArray<Peppol.ResponseCode>

// What the sync makes of a response's portal_status: the connector's mapping, then the default table and rules.
const peppolStatus = (code: Peppol.ResponseCode, partial: boolean) =>
  normalizeStatus(Peppol.responseText(code, partial), Peppol.statusMapping)

describe("Peppol invoice response codes", () => {
  it("only PD without the PPD clarification is PAID; every code maps as its table says", () =>
    fc.assert(
      fc.property(fc.constantFrom(...peppolCodes), fc.boolean(), (code, partial) => {
        const status = peppolStatus(code, partial)
        assert.strictEqual(status === "PAID", code === "PD" && !partial)
        assert.strictEqual(status, code === "PD" && partial ? "APPROVED" : Peppol.responseCodes[code].status)
      })
    ))

  it("AP (accepted, payment next) is APPROVED, never PAID; an invoice without a response is PENDING", () => {
    assert.strictEqual(peppolStatus("AP", false), "APPROVED")
    assert.strictEqual(peppolStatus("AP", true), "APPROVED")
    assert.strictEqual(normalizeStatus(Peppol.noResponseText, Peppol.statusMapping), "PENDING")
  })

  it("a code outside the subset is not a response code (the connector reports it rather than guess)", () =>
    fc.assert(
      fc.property(fc.string({ maxLength: 4 }), (code) => {
        assert.strictEqual(Peppol.isResponseCode(code), peppolCodes.includes(code as Peppol.ResponseCode))
      })
    ))
})

const frenchCodes = Object.keys(French.lifecycleCodes) as ReadonlyArray<French.LifecycleCode>

const frenchStatus = (code: French.LifecycleCode, cashed: French.Cashed = "in full") =>
  normalizeStatus(French.lifecycleText(code, cashed), French.statusMapping)

describe("French lifecycle codes (CDAR)", () => {
  it("only 212 for the whole amount is PAID (not in part, not without its amount); every code maps as its table says", () =>
    fc.assert(
      fc.property(
        fc.constantFrom(...frenchCodes),
        fc.constantFrom<French.Cashed>("in full", "partially", "amount not given"),
        (code, cashed) => {
          const status = frenchStatus(code, cashed)
          assert.strictEqual(status === "PAID", code === "212" && cashed === "in full")
          assert.strictEqual(
            status,
            code === "212" && cashed !== "in full" ? "APPROVED" : French.lifecycleCodes[code].status
          )
        }
      )
    ))

  it("205 (approved) and 211 (payment transmitted) are APPROVED, 206 DISPUTED; no status yet is PENDING", () => {
    assert.strictEqual(frenchStatus("205"), "APPROVED")
    assert.strictEqual(frenchStatus("211"), "APPROVED")
    assert.strictEqual(frenchStatus("206"), "DISPUTED")
    assert.strictEqual(normalizeStatus(French.noStatusText, French.statusMapping), "PENDING")
  })

  it("a code outside the table is not a lifecycle code (the connector reports it rather than guess)", () =>
    fc.assert(
      fc.property(fc.oneof(fc.string({ maxLength: 4 }), fc.integer({ min: 0, max: 999 }).map(String)), (code) => {
        assert.strictEqual(French.isLifecycleCode(code), frenchCodes.includes(code as French.LifecycleCode))
      })
    ))

  it("each rank names one code, and the ranks are the table's order", () => {
    const ranks = frenchCodes.map((code) => French.lifecycleCodes[code].rank)
    assert.strictEqual(new Set(ranks).size, frenchCodes.length)
    for (const code of frenchCodes) {
      assert.strictEqual(codeOfRank(French.lifecycleCodes, French.lifecycleCodes[code].rank), code)
    }
  })
})

/** A response with what it says happened (an amount paid, say): the only thing a full tie leaves to compare. */
interface Said extends Response {
  readonly paid: number
}

const response: fc.Arbitrary<Said> = fc.record({
  // Few distinct instants, ranks, ids and amounts, so that ties, full ties too, are common.
  at: fc.integer({ min: 0, max: 3 }),
  rank: fc.integer({ min: 1, max: 3 }),
  id: fc.constantFrom("imr-1", "imr-2", "imr-3").map(idNumber),
  paid: fc.integer({ min: 0, max: 2 })
})

const lesserPaid = (a: Said, b: Said) => a.paid - b.paid

const latest = (responses: ReadonlyArray<Said>) =>
  responses.reduce<Said | undefined>((known, next) => latestOf(known, next, lesserPaid), undefined)!

describe("the latest response wins", () => {
  it("whatever the order responses are read in, the same one counts, and none is issued after it", () =>
    fc.assert(
      fc.property(
        fc
          .array(response, { minLength: 1, maxLength: 12 })
          .chain((responses) =>
            fc.tuple(fc.constant(responses), fc.shuffledSubarray(responses, { minLength: responses.length }))
          ),
        ([responses, shuffled]) => {
          const counted = latest(responses)
          assert.deepStrictEqual(latest(shuffled), counted)
          assert.deepStrictEqual(latest([...responses].reverse()), counted)
          assert.isTrue(responses.every((other) => other.at <= counted.at))
          // At the same instant, the code furthest along the lifecycle counts.
          assert.isTrue(responses.every((other) => other.at < counted.at || other.rank <= counted.rank))
          // The same instant, code and id (a message delivered twice, differently): the lesser outcome counts.
          const tied = responses.filter(
            (other) => other.at === counted.at && other.rank === counted.rank && other.id === counted.id
          )
          assert.strictEqual(counted.paid, Math.min(...tied.map((other) => other.paid)))
        }
      ),
      { numRuns: 500 }
    ))
})
