/**
 * The `cxml` connector's portal for the conformance kit: an inbox with the vendor's
 * `InvoiceDetailRequest` documents and the network's `StatusUpdateRequest` documents, as cXML
 * 1.2 writes them (DOCTYPE, Header, payload ids, timestamps with offsets). Some invoices have an
 * older status update in a later-named file, so only the cXML timestamp can tell which counts.
 */
import { symlink, writeFile } from "node:fs/promises"
import { join } from "node:path"
import { Effect } from "effect"
import {
  type ConformanceFixture,
  type SampleDocument,
  type SampleDocuments,
  temporaryDirectory
} from "../conformance/Conformance.ts"
import { connector } from "./CxmlConnector.ts"

export const escapeXml = (text: string) =>
  text.replaceAll("&", "&amp;").replaceAll("<", "&lt;").replaceAll(">", "&gt;").replaceAll('"', "&quot;")

const header = `<Header>
    <From><Credential domain="NetworkID"><Identity>AN01000000001</Identity></Credential></From>
    <To><Credential domain="NetworkID"><Identity>AN01000000002</Identity></Credential></To>
    <Sender><Credential domain="NetworkID"><Identity>AN01000000001</Identity><SharedSecret>not-used</SharedSecret></Credential><UserAgent>Network</UserAgent></Sender>
  </Header>`

const envelope = (
  dtd: string,
  payloadId: string,
  timestamp: string,
  request: string
) => `<?xml version="1.0" encoding="UTF-8"?>
<!DOCTYPE cXML SYSTEM "http://xml.cxml.org/schemas/cXML/1.2.060/${dtd}">
<cXML payloadID="${payloadId}" timestamp="${timestamp}" xml:lang="en-US">
  ${header}
  <Request deploymentMode="production">
    ${request}
  </Request>
</cXML>
`

const days = (from: string, to: string) => Math.round((Date.parse(to) - Date.parse(from)) / 86_400_000)

export const invoiceDocument = (document: SampleDocument) => {
  const money = `<Money currency="${document.currency}">${document.amountText}</Money>`
  const terms =
    document.dueDate === null
      ? ""
      : `<PaymentTerm payInNumberOfDays="10"><Discount><DiscountPercent percent="2"/></Discount></PaymentTerm>
          <PaymentTerm payInNumberOfDays="${days(document.receivableDate, document.dueDate)}"/>`
  const order =
    document.poNumber === null
      ? '<InvoiceDetailOrderInfo><MasterAgreementIDInfo agreementID="MA-1"/></InvoiceDetailOrderInfo>'
      : `<InvoiceDetailOrderInfo><OrderReference orderID="${escapeXml(document.poNumber)}"><DocumentReference payloadID="po-${document.key}@buyer.example"/></OrderReference></InvoiceDetailOrderInfo>`
  return envelope(
    "InvoiceDetail.dtd",
    `inv-${document.key}@acme.example`,
    `${document.receivableDate}T09:00:00-08:00`,
    `<InvoiceDetailRequest>
      <InvoiceDetailRequestHeader invoiceID="${escapeXml(document.key)}" purpose="standard" operation="new" invoiceDate="${document.receivableDate}T00:00:00-08:00">
        <InvoiceDetailHeaderIndicator/>
        <InvoiceDetailLineIndicator/>
        ${terms}
        <Comments>Invoice &amp; delivery note ${escapeXml(document.vendorReceivableId)}</Comments>
      </InvoiceDetailRequestHeader>
      <InvoiceDetailOrder>
        ${order}
        <InvoiceDetailItem invoiceLineNumber="1" quantity="1"><UnitOfMeasure>EA</UnitOfMeasure><UnitPrice>${money}</UnitPrice></InvoiceDetailItem>
      </InvoiceDetailOrder>
      <InvoiceDetailSummary>
        <SubtotalAmount>${money}</SubtotalAmount>
        <Tax><Money currency="${document.currency}">0.00</Money><Description xml:lang="en">none</Description></Tax>
        <GrossAmount>${money}</GrossAmount>
        <NetAmount>${money}</NetAmount>
        <DueAmount>${money}</DueAmount>
      </InvoiceDetailSummary>
    </InvoiceDetailRequest>`
  )
}

export const statusDocument = (
  invoiceId: string,
  invoiceDate: string,
  type: string,
  timestamp: string,
  partial?: { readonly currency: string; readonly amount: string }
) =>
  envelope(
    "cXML.dtd",
    `status-${invoiceId}-${timestamp}@network.example`,
    timestamp,
    `<StatusUpdateRequest>
      <Status code="200" text="OK"/>
      <InvoiceStatus type="${type}">
        <InvoiceIDInfo invoiceID="${escapeXml(invoiceId)}" invoiceDate="${invoiceDate}T00:00:00-08:00"/>
        ${partial === undefined ? "" : `<PartialAmount><Money currency="${partial.currency}">${partial.amount}</Money></PartialAmount>`}
        <Comments xml:lang="en-US">Updated by the buyer</Comments>
      </InvoiceStatus>
    </StatusUpdateRequest>`
  )

/** One invoice's documents by kind: the invoice, its status update, and for some an older one. */
const documentsOf = (document: SampleDocument, index: number) => {
  const invoice = invoiceDocument(document)
  if (document.portalStatus === "submitted") return { invoice, status: undefined, older: undefined }
  const partial = document.portalStatus === "paid (partial)"
  const type = partial ? "paid" : document.portalStatus
  const amount = partial
    ? { currency: document.currency, amount: (Math.floor(document.amountCents / 2) / 100).toFixed(2) }
    : type === "paid" && index % 2 === 0
      ? { currency: document.currency, amount: document.amountText }
      : undefined
  return {
    invoice,
    status: statusDocument(document.key, document.receivableDate, type, "2026-11-20T10:00:00-08:00", amount),
    older:
      index % 5 === 0
        ? statusDocument(document.key, document.receivableDate, "processing", "2026-11-19T10:00:00-08:00")
        : undefined
  }
}

/**
 * Writes the inbox: one document a file, as received; a large inbox as archives of a thousand
 * documents a file. Older status updates are filed after newer ones.
 */
const writeInbox = async (directory: string, documents: SampleDocuments) => {
  const perFile = documents.count > 1_000 ? 1_000 : 1
  for (let first = 0; first < documents.count; first += perFile) {
    const files = { invoice: [] as Array<string>, status: [] as Array<string>, older: [] as Array<string> }
    for (let i = first; i < Math.min(first + perFile, documents.count); i++) {
      const written = documentsOf(documents.at(i), i)
      files.invoice.push(written.invoice)
      if (written.status !== undefined) files.status.push(written.status)
      if (written.older !== undefined) files.older.push(written.older)
    }
    const name = perFile === 1 ? documents.at(first).key : `batch-${String(first).padStart(7, "0")}`
    await Promise.all(
      [
        [`invoice-${name}.xml`, files.invoice],
        [`status-${name}-a.xml`, files.status],
        [`status-${name}-b.xml`, files.older]
      ]
        .filter(([, texts]) => texts!.length > 0)
        .map(([file, texts]) => writeFile(join(directory, file as string), (texts as Array<string>).join("")))
    )
  }
}

export const fixture: ConformanceFixture = {
  connector,
  statuses: [
    ["submitted", "PENDING"],
    ["processing", "PENDING"],
    ["reconciled", "APPROVED"],
    ["paying", "APPROVED"],
    ["paid", "PAID"],
    ["paid (partial)", "APPROVED"],
    ["rejected", "DISPUTED"],
    ["canceled", "DISPUTED"]
  ],
  amountNotations: [{ decimalSeparator: ".", groupsThousands: false }],
  invoiceNumberIsKey: true,
  portal: (documents) =>
    Effect.gen(function* () {
      const inbox = yield* temporaryDirectory("cxml-inbox")
      yield* Effect.promise(() => writeInbox(inbox, documents))
      return { inbox }
    }),
  invalidConfigs: [
    { config: {}, field: "inbox" },
    { config: { inbox: "/srv/cxml", amount: "total" }, field: "amount" },
    { config: { inbox: "/srv/cxml", inbx: "/srv/cxml" }, field: "inbx" }
  ],
  failures: [
    {
      name: "the inbox does not exist",
      retryable: false,
      portal: Effect.map(temporaryDirectory("cxml-inbox"), (directory) => ({ inbox: join(directory, "missing") }))
    },
    {
      name: "a document is not well-formed",
      retryable: false,
      portal: Effect.gen(function* () {
        const inbox = yield* temporaryDirectory("cxml-inbox")
        yield* Effect.promise(() => writeFile(join(inbox, "broken.xml"), "<cXML><Request><StatusUpdateRequest></cXML>"))
        return { inbox }
      })
    },
    {
      name: "a document cannot be opened",
      retryable: true,
      portal: Effect.gen(function* () {
        const inbox = yield* temporaryDirectory("cxml-inbox")
        yield* Effect.promise(() => symlink(join(inbox, "gone.xml"), join(inbox, "arriving.xml")))
        return { inbox }
      })
    }
  ]
}
