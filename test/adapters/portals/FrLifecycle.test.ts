/**
 * The fr-lifecycle connector's joins, as a vendor's platform inbox shows them: the status issued
 * last counts whatever the files are named, only 212 for the whole amount is PAID, the amounts
 * of 206 and 212 are kept, a status for another issue date of the same number does not join, and
 * what cannot count is reported, not dropped.
 */
import { readFileSync } from "node:fs"
import { mkdtemp, rm, writeFile } from "node:fs/promises"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { assert, describe, it } from "@effect/vitest"
import { Effect, Stream } from "effect"
import fc from "fast-check"
import { decimalCents } from "../../../adapters/portals/cxml/XmlFiles.ts"
import { connector } from "../../../adapters/portals/fr-lifecycle/FrLifecycleConnector.ts"
import { type LifecycleCode, lifecycleCodes } from "../../../adapters/portals/fr-lifecycle/LifecycleCodes.ts"
import { idNumber } from "../../../adapters/portals/Responses.ts"
import { normalizeStatus } from "../../../core/receivables/domain/Status.ts"
import { pairToFetch, sampleDocuments, temporaryDirectory } from "../../support/conformance/Conformance.ts"
import { cdarDocument, ciiInvoiceDocument } from "./fixtures/fr-lifecycle.ts"
import { creditNoteDocument, invoiceDocument } from "./fixtures/peppol.ts"
import { startSshd } from "./fixtures/sshd.ts"

const samples = sampleDocuments(2, [["submitted", "PENDING"]], { decimalSeparator: ".", groupsThousands: false }, true)
// 123456 cents (1234.56) in USD, and 123450 cents in EUR.
const invoice = samples.at(0)
const other = samples.at(1)

const fetchFrom = (inbox: string) =>
  Effect.map(Stream.runCollect(connector.fetch(pairToFetch({ inbox }))), (documents) => [...documents])

const inboxWith = (files: Readonly<Record<string, string>>) =>
  Effect.gen(function* () {
    const inbox = yield* temporaryDirectory("fr-lifecycle")
    yield* Effect.promise(() =>
      Promise.all(Object.entries(files).map(([name, content]) => writeFile(join(inbox, name), content)))
    )
    return inbox
  })

const statusOf = (document: { readonly portalStatus: string } | undefined) =>
  normalizeStatus(document!.portalStatus, connector.statusMapping)

const codes = Object.keys(lifecycleCodes) as ReadonlyArray<LifecycleCode>

const men = (amount: string, currency = invoice.currency) => ({ type: "MEN", amount, currency })

describe("XML amounts (xs:decimal)", () => {
  it("any amount in cents, written with or without sign, padding or leading digits, reads back exactly", () =>
    fc.assert(
      fc.property(
        fc.integer({ min: -1e12, max: 1e12 }),
        fc.boolean(),
        fc.integer({ min: 0, max: 3 }),
        (cents, plus, zeros) => {
          const magnitude = String(Math.abs(cents)).padStart(3, "0")
          const units = magnitude.slice(0, -2).replace(/^0+(?=\d)/, "")
          const sign = cents < 0 ? "-" : plus ? "+" : ""
          // `.5` for 0.50: xs:decimal needs no digit before the point.
          const written = `${sign}${units === "0" && plus ? "" : units}.${magnitude.slice(-2)}${"0".repeat(zeros)}`
          assert.deepStrictEqual(decimalCents(written, "EUR"), { cents })
        }
      ),
      { numRuns: 500 }
    ))

  it("grouping, brackets, exponents and words are not amounts", () => {
    for (const written of ["1,234.56", "(12.00)", "1e3", "12.3.4", "", ".", "-", "twelve", "1 234.56"]) {
      assert.isTrue("problem" in decimalCents(written, "EUR"), written)
    }
  })
})

describe("the fr-lifecycle connector", () => {
  it("the latest status counts whatever the files are named; only 212 showing the whole amount is PAID", async () => {
    // Three spellings of two instants: 09:00 UTC (format 204), 09:00 UTC (205, +0100), 08:00 UTC.
    const hours: Readonly<Record<string, number>> = { "090000": 9, "100000+0100": 9, "080000": 8 }
    // What a 212 says it cashed (MEN), and what it says is still to pay (RAP), if anything.
    const cashings = {
      none: [],
      whole: [men("1000.00"), men("234.56")],
      part: [men("1234.55")],
      settled: [men("34.56"), { type: "RAP", amount: "0.00", currency: invoice.currency }],
      owing: [men("1234.56"), { type: "RAP", amount: "10.00", currency: invoice.currency }]
    }
    const paidInFull = new Set(["whole", "settled"])
    await fc.assert(
      fc.asyncProperty(
        fc.uniqueArray(
          fc.record({
            code: fc.constantFrom(...codes),
            cashed: fc.constantFrom(...(Object.keys(cashings) as Array<keyof typeof cashings>)),
            day: fc.integer({ min: 10, max: 12 }),
            hour: fc.constantFrom(...Object.keys(hours)),
            // Few message ids, so that statuses tie on time, code and id too (a message delivered twice).
            id: fc.constantFrom("CDV-1", "CDV-2"),
            name: fc.stringMatching(/^[a-z0-9]{1,8}$/)
          }),
          { minLength: 1, maxLength: 6, selector: (status) => status.name }
        ),
        fc.boolean(),
        async (statuses, cii) => {
          const inbox = await mkdtemp(join(tmpdir(), "fr-lifecycle-order-"))
          try {
            await writeFile(join(inbox, "invoice.xml"), cii ? ciiInvoiceDocument(invoice) : invoiceDocument(invoice))
            for (const status of statuses) {
              const amounts = status.code === "212" ? cashings[status.cashed] : []
              await writeFile(
                join(inbox, `s-${status.name}.xml`),
                cdarDocument(
                  [{ invoiceId: invoice.key, invoiceDate: invoice.receivableDate, code: status.code, amounts }],
                  `202611${status.day}${status.hour}`,
                  { id: status.id }
                )
              )
            }
            const [document] = await Effect.runPromise(fetchFrom(inbox))
            const instant = (status: (typeof statuses)[number]) => status.day * 24 + hours[status.hour]!
            const last = Math.max(...statuses.map(instant))
            const atLast = statuses.filter((status) => instant(status) === last)
            const rank = Math.max(...atLast.map((status) => lifecycleCodes[status.code].rank))
            const furthest = atLast.filter((status) => lifecycleCodes[status.code].rank === rank)
            const id = Math.max(...furthest.map((status) => idNumber(status.id)))
            const tied = furthest.filter((status) => idNumber(status.id) === id)
            assert.strictEqual(document?.metadata.response_code, tied[0]!.code)
            const status = statusOf(document)
            // A full tie is not decided by file order: the lesser outcome counts, so PAID only if every copy says so.
            if (tied[0]!.code !== "212") assert.strictEqual(status, lifecycleCodes[tied[0]!.code].status)
            else assert.strictEqual(status, tied.every((copy) => paidInFull.has(copy.cashed)) ? "PAID" : "APPROVED")
          } finally {
            await rm(inbox, { recursive: true, force: true })
          }
        }
      ),
      { numRuns: 25 }
    )
  }, 60_000)

  it.effect("212 for less than the amount is APPROVED with paid_amount; in full, over two VAT rates, PAID", () =>
    Effect.gen(function* () {
      const cashed = (amounts: ReadonlyArray<ReturnType<typeof men>>) =>
        cdarDocument(
          [{ invoiceId: invoice.key, invoiceDate: invoice.receivableDate, code: "212", amounts }],
          "20261120100000"
        )
      const partly = yield* inboxWith({ "invoice.xml": invoiceDocument(invoice), "s.xml": cashed([men("500.00")]) })
      const [part] = yield* fetchFrom(partly)
      assert.strictEqual(part?.portalStatus, "212 Cashed (partially)")
      assert.strictEqual(statusOf(part), "APPROVED")
      assert.strictEqual(part?.metadata.paid_amount, "500.00")
      const wholly = yield* inboxWith({
        "invoice.xml": invoiceDocument(invoice),
        "s.xml": cashed([men("1000.00"), men("234.56")])
      })
      const [whole] = yield* fetchFrom(wholly)
      assert.strictEqual(whole?.portalStatus, "212 Cashed")
      assert.strictEqual(statusOf(whole), "PAID")
      assert.strictEqual(whole?.metadata.paid_amount, "1234.56")
      // Cashed in another currency cannot be compared with the invoice's amount: not known to be all of it.
      const foreign = yield* inboxWith({
        "invoice.xml": invoiceDocument(invoice),
        "s.xml": cashed([men("9999.00", "JPY")])
      })
      const [elsewhere] = yield* fetchFrom(foreign)
      assert.strictEqual(statusOf(elsewhere), "APPROVED")
      assert.strictEqual(elsewhere?.metadata.paid_amount, "9999.00 JPY")
    })
  )

  it.effect(
    "212 without MEN is not PAID; with an amount still to pay (RAP) it is partial; RAP 0 with MEN is PAID",
    () =>
      Effect.gen(function* () {
        const cashedWith = (amounts: ReadonlyArray<{ type: string; amount: string; currency: string }>) =>
          Effect.flatMap(
            inboxWith({
              "invoice.xml": invoiceDocument(invoice),
              "s.xml": cdarDocument(
                [{ invoiceId: invoice.key, invoiceDate: invoice.receivableDate, code: "212", amounts }],
                "20261120100000"
              )
            }),
            fetchFrom
          )
        const rap = (amount: string) => ({ type: "RAP", amount, currency: invoice.currency })
        const [silent] = yield* cashedWith([])
        assert.strictEqual(silent?.portalStatus, "212 Cashed (amount not given)")
        assert.strictEqual(statusOf(silent), "APPROVED")
        assert.strictEqual(silent?.metadata.paid_amount, undefined)
        // The whole amount in this 212, yet the platform says 10.00 is still to pay.
        const [owing] = yield* cashedWith([men("1234.56"), rap("10.00")])
        assert.strictEqual(owing?.portalStatus, "212 Cashed (partially)")
        assert.strictEqual(statusOf(owing), "APPROVED")
        assert.strictEqual(owing?.metadata.remaining_amount, "10.00")
        // The last of several cash-ins: less than the invoice here, nothing left to pay.
        const [settled] = yield* cashedWith([men("34.56"), rap("0.00")])
        assert.strictEqual(settled?.portalStatus, "212 Cashed")
        assert.strictEqual(statusOf(settled), "PAID")
        assert.strictEqual(settled?.metadata.paid_amount, "34.56")
        assert.strictEqual(settled?.metadata.remaining_amount, "0.00")
        // Nothing left to pay, but no MEN: still not shown cashed.
        const [unsaid] = yield* cashedWith([rap("0.00")])
        assert.strictEqual(statusOf(unsaid), "APPROVED")
      })
  )

  it.effect("every AcknowledgementDocument of a message is read, each timed by its own IssueDateTime", () =>
    Effect.gen(function* () {
      const acknowledgement = (document: string) =>
        /<rsm:AcknowledgementDocument>[\s\S]*<\/rsm:AcknowledgementDocument>/.exec(document)![0]
      const second = acknowledgement(
        cdarDocument([{ invoiceId: other.key, invoiceDate: other.receivableDate, code: "211" }], "20261120100000")
      ).replace(
        "<rsm:AcknowledgementDocument>",
        '<rsm:AcknowledgementDocument><ram:IssueDateTime><udt:DateTimeString format="204">20261125120000</udt:DateTimeString></ram:IssueDateTime>'
      )
      const message = cdarDocument(
        [{ invoiceId: invoice.key, invoiceDate: invoice.receivableDate, code: "205" }],
        "20261120100000"
      ).replace("</rsm:AcknowledgementDocument>", `</rsm:AcknowledgementDocument>\n  ${second}`)
      const inbox = yield* inboxWith({
        "a.xml": invoiceDocument(invoice),
        "b.xml": ciiInvoiceDocument(other),
        "s.xml": message
      })
      const documents = yield* fetchFrom(inbox)
      assert.deepStrictEqual(
        documents.map((document) => [
          document.documentKey,
          document.portalStatus,
          document.metadata.response_issued_at,
          document.unreadable
        ]),
        [
          [invoice.key, "205 Approved", "2026-11-20T10:00:00.000Z", undefined],
          [other.key, "211 Payment transmitted", "2026-11-25T12:00:00.000Z", undefined]
        ]
      )
    })
  )

  it.effect("a status that joins no invoice is reported at the end, as is an issue date that is not a date", () =>
    Effect.gen(function* () {
      const inbox = yield* inboxWith({
        "invoice.xml": invoiceDocument(invoice),
        "s1.xml": cdarDocument([{ invoiceId: invoice.key, invoiceDate: undefined, code: "205" }], "20261119100000"),
        // Later, and a refusal, but of the number's invoice of another year.
        "s2.xml": cdarDocument([{ invoiceId: invoice.key, invoiceDate: "2025-03-01", code: "210" }], "20261121100000"),
        "s3.xml": cdarDocument([{ invoiceId: "F-404", invoiceDate: undefined, code: "210" }], "20261121100000"),
        "s4.xml": cdarDocument(
          [{ invoiceId: invoice.key, invoiceDate: invoice.receivableDate, code: "212", amounts: [men("1234.56")] }],
          "20261122100000"
        ).replace(/(<ram:FormattedIssueDateTime><qdt:DateTimeString format="102">)\d+/, "$1last week")
      })
      const documents = yield* fetchFrom(inbox)
      assert.deepStrictEqual(
        documents.map((document) => [document.documentKey, document.portalStatus, document.unreadable?.[0]]),
        [
          [invoice.key, "205 Approved", undefined],
          [
            "s4.xml document 1",
            "",
            `the status 212 of ${invoice.key} names its invoice's issue date (FormattedIssueDateTime) in a form that is not a date (the document from line 1)`
          ],
          [
            `status of ${invoice.key} of 2025-03-01`,
            "",
            `the status 210 Refused issued 2026-11-21T10:00:00.000Z names the invoice ${invoice.key} of 2025-03-01, and no invoice read from the inbox has that number (and issue date)`
          ],
          [
            "status of F-404",
            "",
            "the status 210 Refused issued 2026-11-21T10:00:00.000Z names the invoice F-404, and no invoice read from the inbox has that number (and issue date)"
          ]
        ]
      )
    })
  )

  it.effect("an invoice number reused with another issue date is reported; a resend counts once, silently", () =>
    Effect.gen(function* () {
      const inbox = yield* inboxWith({
        "a.xml": ciiInvoiceDocument(invoice),
        "b.xml": ciiInvoiceDocument(invoice),
        "c.xml": ciiInvoiceDocument({ ...invoice, receivableDate: "2025-01-15", dueDate: null })
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

  it.effect("amounts are xs:decimal, read exactly; what is not, mixed currencies and reversals are reported", () =>
    Effect.gen(function* () {
      const cashed = (amounts: ReadonlyArray<{ type: string; amount: string; currency: string }>) =>
        cdarDocument(
          [{ invoiceId: invoice.key, invoiceDate: invoice.receivableDate, code: "212", amounts }],
          "20261120100000"
        )
      const fetched = (status: string) =>
        Effect.flatMap(inboxWith({ "invoice.xml": invoiceDocument(invoice), "s.xml": status }), fetchFrom)
      const [signed] = yield* fetched(cashed([men("+1234.560")]))
      assert.strictEqual(statusOf(signed), "PAID")
      const [fraction] = yield* fetched(cashed([men("1234"), men(".56")]))
      assert.strictEqual(fraction?.metadata.paid_amount, "1234.56")
      const refused = [
        [[men("(1234.56)")], 'an amount (MEN) that cannot be read: "(1234.56)" is not a decimal number'],
        [[men("1,234.56")], 'an amount (MEN) that cannot be read: "1,234.56" is not a decimal number'],
        [[men("1234.561")], 'an amount (MEN) that cannot be read: "1234.561" has 3 decimals, more than USD\'s 2'],
        [
          [men("1234.561", "KWD")],
          'an amount (MEN) that cannot be read: "1234.561" has 3 decimals: KWD has 3, and amounts are kept in hundredths, so it cannot be read exactly'
        ],
        [
          [men("1000.00"), men("234.56", "EUR")],
          "amounts (MEN) in several currencies (USD, EUR), which cannot be added"
        ],
        [[men("-1234.56")], "a negative amount (MEN -1234.56): a reversal is not read as money received"]
      ] as const
      for (const [amounts, problem] of refused) {
        const [document, report] = yield* fetched(cashed(amounts))
        // The status cannot count: the invoice keeps the status it had (none here), never PAID.
        assert.strictEqual(document?.portalStatus, "submitted")
        assert.strictEqual(
          report?.unreadable?.[0],
          `the status 212 of ${invoice.key} has ${problem} (the document from line 1)`
        )
      }
    })
  )

  it.effect("206 is DISPUTED with approved_amount and its reason; 205 and 211 are APPROVED, never PAID", () =>
    Effect.gen(function* () {
      const inbox = yield* inboxWith({
        "a.xml": invoiceDocument(invoice),
        "b.xml": ciiInvoiceDocument(other, 1),
        "s1.xml": cdarDocument(
          [
            {
              invoiceId: invoice.key,
              invoiceDate: invoice.receivableDate,
              code: "206",
              reasons: [["QTE_ERR", "2 cartons manquants"]],
              note: "Avoir attendu",
              amounts: [{ type: "MAPTTC", amount: "1000.00", currency: invoice.currency }]
            },
            { invoiceId: other.key, invoiceDate: undefined, code: "211" }
          ],
          "20261120100000"
        ),
        "s2.xml": cdarDocument(
          [{ invoiceId: other.key, invoiceDate: other.receivableDate, code: "205" }],
          "20261119100000"
        )
      })
      const [partly, approved] = yield* fetchFrom(inbox)
      assert.strictEqual(partly?.portalStatus, "206 Partially approved")
      assert.strictEqual(statusOf(partly), "DISPUTED")
      assert.strictEqual(partly?.metadata.approved_amount, "1000.00")
      assert.strictEqual(partly?.metadata.response_reasons, "QTE_ERR; 2 cartons manquants")
      assert.strictEqual(partly?.metadata.response_note, "Avoir attendu")
      // One message answered both invoices; the later of its statuses and the 205 counts for the second.
      assert.strictEqual(approved?.portalStatus, "211 Payment transmitted")
      assert.strictEqual(statusOf(approved), "APPROVED")
      assert.strictEqual(approved?.metadata.response_issued_at, "2026-11-20T10:00:00.000Z")
    })
  )

  it.effect("reasons and notes are kept to 1 KiB each; elements of a message not read are let go", () =>
    Effect.gen(function* () {
      const message = cdarDocument(
        [
          {
            invoiceId: invoice.key,
            invoiceDate: invoice.receivableDate,
            code: "207",
            reasons: [["QTE_ERR", "manquant ".repeat(1_000)]],
            note: "voir ".repeat(1_000)
          }
        ],
        "20261120100000"
      ).replace("<ram:RoleCode>SE</ram:RoleCode>", `<ram:RoleCode listID="${"x".repeat(100_000)}">SE</ram:RoleCode>`)
      const [document] = yield* fetchFrom(
        yield* inboxWith({ "invoice.xml": invoiceDocument(invoice), "s.xml": message })
      )
      assert.strictEqual(document?.portalStatus, "207 In dispute")
      assert.strictEqual(document?.metadata.response_reasons?.length, 1_024)
      assert.isTrue(document?.metadata.response_reasons?.startsWith("QTE_ERR; manquant manquant"))
      assert.isTrue(document?.metadata.response_reasons?.endsWith("…"))
      assert.strictEqual(document?.metadata.response_note?.length, 1_024)
    })
  )

  it.effect("a status for the same number issued on another date does not join; one without a date does", () =>
    Effect.gen(function* () {
      const inbox = yield* inboxWith({
        "invoice.xml": ciiInvoiceDocument(invoice),
        "s1.xml": cdarDocument(
          [{ invoiceId: invoice.key, invoiceDate: "2019-01-01", code: "212", amounts: [men("1234.56")] }],
          "20261120100000"
        ),
        "s2.xml": cdarDocument([{ invoiceId: invoice.key, invoiceDate: undefined, code: "205" }], "20261119")
      })
      const [document] = yield* fetchFrom(inbox)
      assert.strictEqual(document?.portalStatus, "205 Approved")
      assert.strictEqual(document?.metadata.response_issued_at, "2026-11-19T00:00:00.000Z")
    })
  )

  it.effect("an unmapped code, a status naming no invoice, credit notes and other documents are reported", () =>
    Effect.gen(function* () {
      const inbox = yield* inboxWith({
        "invoice.xml": invoiceDocument(invoice),
        "s1.xml": cdarDocument([{ invoiceId: invoice.key, invoiceDate: undefined, code: "220" }], "20261121100000"),
        "s2.xml": cdarDocument([{ invoiceId: "", invoiceDate: undefined, code: "205" }], "20261121100000"),
        "s3.xml": cdarDocument([{ invoiceId: invoice.key, invoiceDate: undefined, code: "205" }], "2026112"),
        "t1.xml": ciiInvoiceDocument({ ...other, key: "AV-1" }).replace(
          "<ram:TypeCode>380</ram:TypeCode>",
          "<ram:TypeCode>381</ram:TypeCode>"
        ),
        "t2.xml": creditNoteDocument("AV-2", { id: invoice.key }, invoice.currency, "10.00"),
        "t3.xml": "<Order><ID>1</ID></Order>"
      })
      const documents = yield* fetchFrom(inbox)
      assert.deepStrictEqual(
        documents.map((document) => [document.documentKey, document.unreadable?.[0]?.slice(0, 56)]),
        [
          [invoice.key, undefined],
          ["s1.xml document 1", 'the status of 100000 has the code "220", not one of the '],
          ["s2.xml document 1", "a ReferenceReferencedDocument without the IssuerAssigned"],
          ["s3.xml document 1", "the status of 100000 has no readable IssueDateTime (the "],
          ["t1.xml document 1", "a credit note: not a receivable, and fr-lifecycle does n"],
          ["t2.xml document 1", "a credit note: not a receivable, and fr-lifecycle does n"],
          ["t3.xml document 1", "a Order document: the inbox takes Invoice (UBL), CrossIn"]
        ]
      )
      // What could not count changed nothing: the invoice is still waiting for its lifecycle.
      assert.strictEqual(documents[0]?.portalStatus, "submitted")
    })
  )

  it.effect("a CII invoice: GrandTotalAmount without DuePayableAmount, the due date from its terms in days", () =>
    Effect.gen(function* () {
      // The fixture leaves DuePayableAmount out at index 2, and DueDateDateTime at index 1.
      const inbox = yield* inboxWith({ "a.xml": ciiInvoiceDocument(invoice, 2), "b.xml": ciiInvoiceDocument(other, 1) })
      const [first, second] = yield* fetchFrom(inbox)
      assert.strictEqual(first?.amountCents, invoice.amountCents)
      assert.strictEqual(first?.currency, invoice.currency)
      assert.strictEqual(first?.dueDate, invoice.dueDate)
      assert.strictEqual(second?.dueDate, other.dueDate)
      assert.strictEqual(second?.metadata.payment_terms, "Paiement à 45 jours, escompte 2% à 10 jours")
      assert.strictEqual(second?.poNumber, other.poNumber)
      assert.strictEqual(second?.metadata.buyer_reference, "SERVICE-ACHATS")
    })
  )

  it.effect("the README's worked example gives the receivable it describes", () =>
    Effect.gen(function* () {
      const readme = readFileSync(join(import.meta.dirname, "../../../adapters/portals/fr-lifecycle/README.md"), "utf8")
      // Each XML block of the page is the file named last before it.
      const [, ...blocks] = readme.split("```xml\n")
      const before = readme.split("```xml\n").slice(0, -1)
      const files = Object.fromEntries(
        blocks.map((block, i) => [[...before[i]!.matchAll(/`([\w.-]+\.xml)`/g)].at(-1)![1]!, block.split("```")[0]!])
      )
      assert.deepStrictEqual(Object.keys(files), ["invoice-F-2026-0042.xml", "cdv-204.xml", "cdv-212.xml"])
      const [document] = yield* fetchFrom(yield* inboxWith(files))
      assert.deepStrictEqual(
        {
          ...document,
          status: statusOf(document),
          metadata: { ...document!.metadata, file_reference: undefined }
        },
        {
          documentKey: "F-2026-0042",
          vendorReceivableId: "F-2026-0042",
          amountCents: 150000,
          currency: "EUR",
          receivableDate: "2026-11-02",
          dueDate: "2026-12-02",
          portalStatus: "212 Cashed (partially)",
          poNumber: "BC-4711",
          status: "APPROVED",
          metadata: {
            payment_terms: "Paiement à 30 jours",
            invoice_type_code: "380",
            response_code: "212",
            response_issued_at: "2026-11-25T08:30:00.000Z",
            paid_amount: "600.00",
            file_reference: undefined
          }
        }
      )
      assert.strictEqual(document?.metadata.file_reference, "invoice-F-2026-0042.xml")
    })
  )

  it.effect("over SFTP: read whole when a status arrives, not at all when nothing did", () =>
    Effect.gen(function* () {
      const sshd = yield* startSshd
      const directory = yield* temporaryDirectory("fr-lifecycle-sftp")
      const sftp = {
        host: "127.0.0.1",
        port: sshd.port,
        user: sshd.user,
        privateKey: { env: "PA_SFTP_KEY" },
        directory,
        hostKey: sshd.hostKey.fingerprint
      }
      const pair = pairToFetch({ sftp }, { PA_SFTP_KEY: sshd.clientKey })
      const fetchOverSftp = Effect.map(Stream.runCollect(connector.fetch(pair)), (documents) =>
        [...documents].map((document) => [document.documentKey, document.portalStatus])
      )
      yield* Effect.promise(async () => {
        await writeFile(join(directory, "invoice.xml"), ciiInvoiceDocument(invoice))
        await writeFile(
          join(directory, "s1.xml"),
          cdarDocument([{ invoiceId: invoice.key, invoiceDate: undefined, code: "204" }], "20261103140000")
        )
      })
      assert.deepStrictEqual(yield* fetchOverSftp, [[invoice.key, "204 Taken in charge"]])
      assert.deepStrictEqual(yield* fetchOverSftp, [])
      yield* Effect.promise(() =>
        writeFile(
          join(directory, "s2.xml"),
          cdarDocument([{ invoiceId: invoice.key, invoiceDate: undefined, code: "205" }], "20261110140000")
        )
      )
      assert.deepStrictEqual(yield* fetchOverSftp, [[invoice.key, "205 Approved"]])
    })
  )
})
