/**
 * The `cxml` connector: cXML documents in an inbox directory, the standard SAP Ariba, Coupa and
 * other supplier networks speak. The vendor's own invoices (`InvoiceDetailRequest`) give the
 * amounts and dates; the network's `StatusUpdateRequest` documents carrying an `InvoiceStatus`
 * give each invoice's state. For an invoice, the status update with the latest cXML `timestamp`
 * counts; an invoice without one yet is `submitted`.
 *
 * The mapping follows cXML's meanings, not the words: `reconciled` means the invoice was matched
 * against its order and receipt and cleared for payment, so it is APPROVED, not PAID; `paying`
 * is APPROVED; `paid` with a `PartialAmount` below the amount due reads `paid (partial)` and is
 * APPROVED until the rest arrives.
 *
 * A file holds one cXML document, as received, or several one after another, as message archives
 * and middleware logs keep them. Status updates are gathered first (a few dozen bytes per
 * invoice), then invoices are read as a stream, so an inbox of any size syncs in bounded memory.
 */
import { DateTime, Duration, Effect, Schema, Stream } from "effect"
import type { FetchedDocument } from "../../../core/receivables/domain/PairSync.ts"
import { addDays, parseAmountCents, parseDate } from "../../../core/receivables/domain/PortalValues.ts"
import { makeStatusMapping } from "../../../core/receivables/domain/Status.ts"
import {
  configOf,
  type PairToFetch,
  type PortalConnector,
  whenApplied
} from "../../../core/receivables/ports/PortalConnector.ts"
import { type Inbox, planWhole } from "../inbox/Inbox.ts"
import { SftpSettings } from "../inbox/SftpInbox.ts"
import { oneInbox, openInbox } from "../inbox/Source.ts"
import { unreadableDocument } from "../Unreadable.ts"
import { childAt, childrenNamed, type XmlElement } from "./Xml.ts"
import {
  detached,
  type InboxEvent,
  interner,
  locator,
  moneyText,
  notReadReport,
  xmlEventsIn,
  xmlFilesOf
} from "./XmlFiles.ts"

export { stillWritingMinutes } from "./XmlFiles.ts"

export const CxmlConfig = Schema.Struct({
  /** The local directory the cXML documents of this vendor and debtor arrive in (`*.xml`); or `sftp`. */
  inbox: Schema.optionalKey(Schema.String.check(Schema.isNonEmpty())),
  /** The documents' directory on an SFTP server, in place of `inbox`. */
  sftp: Schema.optionalKey(SftpSettings),
  /**
   * Which of the invoice summary's amounts is the receivable's: `due` (DueAmount, after
   * deposits; the default), `net` (NetAmount, after discounts) or `gross` (GrossAmount).
   * When the chosen one is absent, the next in that order is used.
   */
  amount: Schema.optionalKey(Schema.Literals(["due", "net", "gross"]))
}).check(oneInbox("inbox"))
export type CxmlConfig = typeof CxmlConfig.Type

const kind = "cxml"

export const statusMapping = makeStatusMapping({
  submitted: "PENDING",
  processing: "PENDING",
  reconciled: "APPROVED",
  paying: "APPROVED",
  "paid (partial)": "APPROVED",
  paid: "PAID",
  rejected: "DISPUTED",
  canceled: "DISPUTED"
})

/** An invoice's latest status, kept compact: one per invoice of the inbox is held during a fetch. */
interface LatestStatus {
  /** The status update's cXML timestamp, in milliseconds. */
  readonly at: number
  readonly type: string
  readonly partial: string | undefined
  readonly comment: string | undefined
}

const statusOf = (root: XmlElement, intern: (text: string) => string) => {
  const status = childAt(root, "Request/StatusUpdateRequest/InvoiceStatus")
  const invoiceId = childAt(status, "InvoiceIDInfo")?.attributes.invoiceID?.trim()
  if (status === undefined || invoiceId === undefined || invoiceId === "") return undefined
  const comment = childAt(status, "Comments")?.text.trim()
  const partial = moneyText(childAt(status, "PartialAmount/Money"))
  const latest: LatestStatus = {
    at: Date.parse(root.attributes.timestamp ?? "") || 0,
    type: intern((status.attributes.type ?? "").trim()),
    partial: partial === undefined ? undefined : detached(partial),
    comment: comment === undefined || comment === "" ? undefined : intern(comment)
  }
  return { invoiceId: detached(invoiceId), latest }
}

const amountOrder = {
  due: ["DueAmount", "NetAmount", "GrossAmount"],
  net: ["NetAmount", "GrossAmount"],
  gross: ["GrossAmount"]
}

/** One invoice and its latest status as a document; unreadable values pass on, to be quarantined. */
export const documentOf = (
  config: CxmlConfig,
  request: XmlElement,
  status: LatestStatus | undefined,
  file: string
): FetchedDocument => {
  const header = childAt(request, "InvoiceDetailRequestHeader")
  const invoiceId = header?.attributes.invoiceID ?? ""
  const invoiceDate = header?.attributes.invoiceDate ?? ""
  const receivableDate = parseDate(invoiceDate, "YMD") ?? invoiceDate
  const summary = childAt(request, "InvoiceDetailSummary")
  const money = amountOrder[config.amount ?? "due"]
    .map((name) => childAt(summary, `${name}/Money`))
    .find((element) => element !== undefined)
  const amountCents = parseAmountCents(moneyText(money) ?? "", ".") ?? Number.NaN
  // The net term is the longest; shorter ones are early-payment discounts.
  const netDays = Math.max(
    ...childrenNamed(header, "PaymentTerm")
      .map((term) => Number(term.attributes.payInNumberOfDays))
      .filter(Number.isInteger)
  )
  const orderId = childAt(request, "InvoiceDetailOrder/InvoiceDetailOrderInfo/OrderReference")?.attributes.orderID
  const partialCents = status?.partial === undefined ? undefined : parseAmountCents(status.partial, ".")
  const type = status?.type ?? "submitted"
  const metadata: Record<string, string> = { file_reference: file }
  if (Number.isInteger(netDays)) metadata.payment_terms = `NET${netDays}`
  if (header?.attributes.purpose !== undefined) metadata.invoice_purpose = header.attributes.purpose
  if (status?.partial !== undefined) metadata.paid_amount = status.partial
  if (status?.comment !== undefined) metadata.status_comment = status.comment
  if (status !== undefined && status.at > 0) metadata.status_updated_at = new Date(status.at).toISOString()
  return {
    documentKey: invoiceId.trim(),
    vendorReceivableId: invoiceId.trim() || null,
    amountCents,
    currency: money?.attributes.currency ?? "",
    receivableDate,
    dueDate: Number.isInteger(netDays) && receivableDate.length === 10 ? addDays(receivableDate, netDays) : null,
    portalStatus: type === "paid" && partialCents !== undefined && partialCents < amountCents ? "paid (partial)" : type,
    poNumber: orderId?.trim() || null,
    metadata
  }
}

// The parts of a cXML document each pass reads; everything else is parsed and let go.
const surveyed = ["Request/InvoiceDetailRequest/InvoiceDetailRequestHeader", "Request/StatusUpdateRequest"]
const wanted = [
  ...surveyed,
  "Request/InvoiceDetailRequest/InvoiceDetailSummary",
  "Request/InvoiceDetailRequest/InvoiceDetailOrder/InvoiceDetailOrderInfo"
]

const eventsIn = (inbox: Inbox, file: string, now: number, paths: ReadonlyArray<string>) =>
  xmlEventsIn(inbox, file, now, paths, { format: "cXML" })

/** What the inbox says before any invoice is read: latest statuses, deletions, which files to read again. */
const survey = Effect.fnUntraced(function* (inbox: Inbox, files: ReadonlyArray<string>, now: number) {
  const statuses = new Map<string, LatestStatus>()
  const deleted = new Set<string>()
  const toRead: Array<string> = []
  const intern = interner()
  for (const file of files) {
    // Files with invoices are read again for them; so are files with something to report.
    let again = false
    yield* Stream.runForEach(eventsIn(inbox, file, now, surveyed), (event) =>
      Effect.sync(() => {
        if (event._tag !== "Document") {
          again = true
          return
        }
        const request = childAt(event.root, "Request")
        const header = childAt(request, "InvoiceDetailRequest/InvoiceDetailRequestHeader")
        if (childAt(request, "InvoiceDetailRequest") !== undefined) {
          again = true
          const invoiceId = header?.attributes.invoiceID?.trim()
          if (invoiceId && header?.attributes.operation === "delete") deleted.add(detached(invoiceId))
          return
        }
        if (childAt(request, "StatusUpdateRequest/InvoiceStatus") === undefined) return
        const update = statusOf(event.root, intern)
        if (update === undefined) {
          again = true
          return
        }
        const known = statuses.get(update.invoiceId)
        // The latest timestamp counts; at equal times, the later document.
        if (known === undefined || update.latest.at >= known.at) statuses.set(update.invoiceId, update.latest)
      })
    )
    if (again) toRead.push(file)
  }
  return { statuses, deleted, toRead }
})

const fetchDocuments = Effect.fn("CxmlConnector.fetch")(function* (pair: PairToFetch) {
  const config = yield* configOf({ kind, configSchema: CxmlConfig }, pair.config)
  const now = DateTime.toEpochMillis(pair.now)
  const inbox = yield* openInbox(config.inbox, config.sftp, pair, (directory) => `the inbox ${directory}`)
  // An invoice and its statuses are in different files: when any file is new, all are read again.
  const plan = yield* planWhole(inbox, xmlFilesOf(yield* inbox.list))
  const { statuses, deleted, toRead } = yield* survey(inbox, plan.files, now)
  // An invoice sent again (a resend) is the same invoice: the first copy counts.
  const given = new Set<string>()
  const documentsOf = (file: string, event: InboxEvent): ReadonlyArray<FetchedDocument> => {
    const reference = { file_reference: file }
    const notRead = notReadReport(file, event, "cXML document")
    if (notRead !== undefined) return notRead
    switch (event._tag) {
      case "Document": {
        const request = childAt(event.root, "Request/InvoiceDetailRequest")
        if (request === undefined) {
          const status = childAt(event.root, "Request/StatusUpdateRequest/InvoiceStatus")
          return status !== undefined && statusOf(event.root, (text) => text) === undefined
            ? [
                unreadableDocument(
                  locator(file, event),
                  [`an InvoiceStatus without an invoiceID (the cXML document from line ${event.line})`],
                  reference
                )
              ]
            : []
        }
        const invoiceId = childAt(request, "InvoiceDetailRequestHeader")?.attributes.invoiceID?.trim() ?? ""
        if (invoiceId === "") {
          return [
            unreadableDocument(
              locator(file, event),
              [`an InvoiceDetailRequest without an invoiceID (the cXML document from line ${event.line})`],
              reference
            )
          ]
        }
        if (given.has(invoiceId) || deleted.has(invoiceId)) return []
        given.add(detached(invoiceId))
        return [documentOf(config, request, statuses.get(invoiceId), file)]
      }
      default:
        return []
    }
  }
  return Stream.fromIterable(toRead).pipe(
    Stream.flatMap((file) =>
      eventsIn(inbox, file, now, wanted).pipe(
        Stream.map((event) => documentsOf(file, event)),
        Stream.flattenIterable
      )
    ),
    // Only a fetch that read every file, once the engine has applied it, counts them as read.
    Stream.concat(Stream.fromEffectDrain(whenApplied(pair, plan.done)))
  )
})

export const connector = {
  kind,
  configSchema: CxmlConfig,
  statusMapping,
  defaultInterval: Duration.minutes(15),
  fetch: (pair) => Stream.unwrap(fetchDocuments(pair))
} satisfies PortalConnector
