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
import { connector } from "../../../adapters/portals/fr-lifecycle/FrLifecycleConnector.ts"
import { type LifecycleCode, lifecycleCodes } from "../../../adapters/portals/fr-lifecycle/LifecycleCodes.ts"
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

describe("the fr-lifecycle connector", () => {
  it("the latest status counts whatever the files are named; only 212 for the whole amount is PAID", async () => {
    // Three spellings of two instants: 09:00 UTC (format 204), 09:00 UTC (205, +0100), 08:00 UTC.
    const hours: Readonly<Record<string, number>> = { "090000": 9, "100000+0100": 9, "080000": 8 }
    await fc.assert(
      fc.asyncProperty(
        fc.uniqueArray(
          fc.record({
            code: fc.constantFrom(...codes),
            cashed: fc.constantFrom("none", "whole", "part"),
            day: fc.integer({ min: 10, max: 12 }),
            hour: fc.constantFrom(...Object.keys(hours)),
            name: fc.stringMatching(/^[a-z0-9]{1,8}$/)
          }),
          { minLength: 1, maxLength: 6, selector: (status) => status.name }
        ),
        fc.boolean(),
        async (statuses, cii) => {
          const inbox = await mkdtemp(join(tmpdir(), "fr-lifecycle-order-"))
          try {
            await writeFile(join(inbox, "invoice.xml"), cii ? ciiInvoiceDocument(invoice) : invoiceDocument(invoice))
            for (const [i, status] of statuses.entries()) {
              const amounts =
                status.code !== "212" || status.cashed === "none"
                  ? []
                  : status.cashed === "whole"
                    ? [men("1000.00"), men("234.56")]
                    : [men("1234.55")]
              await writeFile(
                join(inbox, `s-${status.name}.xml`),
                cdarDocument(
                  [{ invoiceId: invoice.key, invoiceDate: invoice.receivableDate, code: status.code, amounts }],
                  `202611${status.day}${status.hour}`,
                  { id: `CDV-${i}` }
                )
              )
            }
            const [document] = await Effect.runPromise(fetchFrom(inbox))
            const instant = (status: (typeof statuses)[number]) => status.day * 24 + hours[status.hour]!
            const last = Math.max(...statuses.map(instant))
            const furthest = statuses
              .filter((status) => instant(status) === last)
              .reduce((a, b) => (lifecycleCodes[b.code].rank > lifecycleCodes[a.code].rank ? b : a))
            assert.strictEqual(document?.metadata.response_code, furthest.code)
            // Equal instants and codes: the message with the greater id counts, so the amount may differ; the status may not.
            const partly = statuses.some(
              (status) => instant(status) === last && status.code === "212" && status.cashed === "part"
            )
            const wholly = statuses.some(
              (status) => instant(status) === last && status.code === "212" && status.cashed !== "part"
            )
            const status = statusOf(document)
            if (furthest.code !== "212") assert.strictEqual(status, lifecycleCodes[furthest.code].status)
            else if (!partly) assert.strictEqual(status, "PAID")
            else if (!wholly) assert.strictEqual(status, "APPROVED")
            // No code but 212, and no 212 for part of the amount, is ever PAID.
            if (status === "PAID") assert.isTrue(furthest.code === "212" && wholly)
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
