/**
 * The peppol connector's joins, as a debtor's inbox shows them: the response the buyer issued
 * last counts whatever the files are named, a response for another issue date of the same number
 * does not join, credit notes are netted, and what cannot count is reported, not dropped.
 */
import { mkdtemp, rm, writeFile } from "node:fs/promises"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { assert, describe, it } from "@effect/vitest"
import { Effect, Stream } from "effect"
import fc from "fast-check"
import { connector } from "../../../adapters/portals/peppol/PeppolConnector.ts"
import { normalizeStatus } from "../../../core/receivables/domain/Status.ts"
import { pairToFetch, sampleDocuments, temporaryDirectory } from "../../support/conformance/Conformance.ts"
import { creditNoteDocument, invoiceDocument, responseDocument } from "./fixtures/peppol.ts"

const invoice = sampleDocuments(1, [["sent", "PENDING"]], { decimalSeparator: ".", groupsThousands: false }, true).at(0)

const fetchFrom = (inbox: string) =>
  Effect.map(Stream.runCollect(connector.fetch(pairToFetch({ inbox }))), (documents) => [...documents])

const inboxWith = (files: Readonly<Record<string, string>>) =>
  Effect.gen(function* () {
    const inbox = yield* temporaryDirectory("peppol")
    yield* Effect.promise(() =>
      Promise.all(Object.entries(files).map(([name, content]) => writeFile(join(inbox, name), content)))
    )
    return inbox
  })

const codes = ["AB", "IP", "UQ", "CA", "RE", "AP", "PD"] as const

describe("the peppol connector", () => {
  it("the latest response counts whatever the files are named; at the same instant the further code", async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.uniqueArray(
          fc.record({
            code: fc.constantFrom(...codes),
            day: fc.integer({ min: 10, max: 12 }),
            hour: fc.constantFrom("09:00:00", "08:00:00Z", "10:00:00+01:00"),
            name: fc.stringMatching(/^[a-z0-9]{1,8}$/)
          }),
          { minLength: 1, maxLength: 6, selector: (response) => response.name }
        ),
        async (responses) => {
          const inbox = await mkdtemp(join(tmpdir(), "peppol-order-"))
          try {
            await writeFile(join(inbox, "invoice.xml"), invoiceDocument(invoice))
            for (const [i, response] of responses.entries()) {
              await writeFile(
                join(inbox, `r-${response.name}.xml`),
                responseDocument(
                  invoice.key,
                  invoice.receivableDate,
                  response.code,
                  {
                    date: `2026-11-${response.day}`,
                    time: response.hour
                  },
                  { id: `imr-${i}` }
                )
              )
            }
            const [document] = await Effect.runPromise(fetchFrom(inbox))
            // 09:00:00 (UTC), 08:00:00Z and 10:00:00+01:00 are three spellings of two instants.
            const hours: Readonly<Record<string, number>> = { "09:00:00": 9, "08:00:00Z": 8, "10:00:00+01:00": 9 }
            const instant = (response: (typeof responses)[number]) => response.day * 24 + hours[response.hour]!
            const last = Math.max(...responses.map(instant))
            const furthest = Math.max(
              ...responses
                .filter((response) => instant(response) === last)
                .map((response) => codes.indexOf(response.code))
            )
            assert.strictEqual(document?.metadata.response_code, codes[furthest])
          } finally {
            await rm(inbox, { recursive: true, force: true })
          }
        }
      ),
      { numRuns: 25 }
    )
  }, 60_000)

  it.effect("a response for the same number issued on another date does not join; one without a date does", () =>
    Effect.gen(function* () {
      const inbox = yield* inboxWith({
        "invoice.xml": invoiceDocument(invoice),
        "r1.xml": responseDocument(invoice.key, "2019-01-01", "PD", { date: "2026-11-20" }),
        "r2.xml": responseDocument(invoice.key, undefined, "AP", { date: "2026-11-19" })
      })
      const [document] = yield* fetchFrom(inbox)
      assert.strictEqual(document?.portalStatus, "AP Accepted")
      assert.strictEqual(normalizeStatus(document!.portalStatus, connector.statusMapping), "APPROVED")
    })
  )

  it.effect("PD with PPD is a partial payment, APPROVED, its reasons in metadata; no response is PENDING", () =>
    Effect.gen(function* () {
      const inbox = yield* inboxWith({
        "invoice.xml": invoiceDocument(invoice),
        "r.xml": responseDocument(
          invoice.key,
          invoice.receivableDate,
          "PD",
          { date: "2026-11-20" },
          {
            reasons: [["PPD", "500.00 paid"]]
          }
        )
      })
      const [document] = yield* fetchFrom(inbox)
      assert.strictEqual(document?.portalStatus, "PD Paid (PPD partially paid)")
      assert.strictEqual(normalizeStatus(document!.portalStatus, connector.statusMapping), "APPROVED")
      assert.strictEqual(document?.metadata.response_reasons, "PPD Partially paid: 500.00 paid")
      const alone = yield* inboxWith({ "invoice.xml": invoiceDocument(invoice) })
      const [unanswered] = yield* fetchFrom(alone)
      assert.strictEqual(normalizeStatus(unanswered!.portalStatus, connector.statusMapping), "PENDING")
    })
  )

  it.effect("credit notes are netted against their invoice; in full, the invoice is credited, DISPUTED", () =>
    Effect.gen(function* () {
      const half = ((invoice.amountCents - (invoice.amountCents % 2)) / 200).toFixed(2)
      const inbox = yield* inboxWith({
        "invoice.xml": invoiceDocument(invoice),
        "cn1.xml": creditNoteDocument("CN-1", { id: invoice.key }, invoice.currency, half),
        "r.xml": responseDocument(invoice.key, undefined, "AP", { date: "2026-11-20" })
      })
      const [partly] = yield* fetchFrom(inbox)
      assert.strictEqual(partly?.portalStatus, "AP Accepted")
      assert.strictEqual(partly?.amountCents, invoice.amountCents)
      assert.strictEqual(partly?.metadata.credit_notes, "CN-1")
      assert.strictEqual(partly?.metadata.credited_amount, half)
      yield* Effect.promise(() =>
        writeFile(
          join(inbox, "cn2.xml"),
          creditNoteDocument(
            "CN-2",
            { id: invoice.key, date: invoice.receivableDate },
            invoice.currency,
            invoice.amountText
          )
        )
      )
      const [credited] = yield* fetchFrom(inbox)
      assert.strictEqual(credited?.portalStatus, "credited in full")
      assert.strictEqual(normalizeStatus(credited!.portalStatus, connector.statusMapping), "DISPUTED")
      assert.strictEqual(credited?.metadata.response_status, "AP Accepted")
    })
  )

  it.effect("an invoice number reused with another issue date is reported; a resend counts once, silently", () =>
    Effect.gen(function* () {
      const inbox = yield* inboxWith({
        "a.xml": invoiceDocument(invoice),
        "b.xml": invoiceDocument(invoice),
        "c.xml": invoiceDocument({ ...invoice, receivableDate: "2025-01-15", dueDate: null })
      })
      const documents = yield* fetchFrom(inbox)
      assert.deepStrictEqual(
        documents.map((document) => [document.documentKey, document.receivableDate, document.unreadable?.[0]]),
        [
          [invoice.key, invoice.receivableDate, undefined],
          [
            "c.xml document 1",
            "",
            `the invoice ${invoice.key} issued 2025-01-15: its number was already read for the invoice issued ${invoice.receivableDate}, and one number is one receivable (the document from line 1)`
          ]
        ]
      )
    })
  )

  it.effect(
    "an unknown code, a response naming no invoice, and a credit note for an invoice not held are reported",
    () =>
      Effect.gen(function* () {
        const inbox = yield* inboxWith({
          "invoice.xml": invoiceDocument(invoice),
          "unknown.xml": responseDocument(invoice.key, undefined, "PAID", { date: "2026-11-21" }),
          "orphan.xml": creditNoteDocument("CN-9", { id: "NOPE-1" }, "EUR", "10.00")
        })
        const documents = yield* fetchFrom(inbox)
        assert.deepStrictEqual(
          documents.map((document) => [document.documentKey, document.unreadable?.[0]?.slice(0, 60)]),
          [
            [invoice.key, undefined],
            ["unknown.xml document 1", 'the response to 100000 has the code "PAID", not one of Peppo'],
            ["credit notes CN-9", "the credit notes CN-9 credit the invoice NOPE-1, which is no"]
          ]
        )
        // The unknown code changed nothing: the invoice is still waiting for an answer.
        assert.strictEqual(documents[0]?.portalStatus, "sent")
      })
  )
})
