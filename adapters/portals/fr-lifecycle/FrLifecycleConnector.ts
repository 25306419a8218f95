/**
 * The `fr-lifecycle` connector: a vendor's French e-invoicing documents in an inbox, as its
 * approved platform (plateforme agréée) delivers them. The vendor's own invoices (UBL 2.1
 * `Invoice` or UN/CEFACT `CrossIndustryInvoice`, the XML of a Factur-X) give the amounts and
 * dates; the lifecycle messages (CDAR, Flow 6) give each invoice's state as a code
 * (`LifecycleCodes.ts`), joined by the referenced invoice (its number and, when the message gives
 * it, its issue date). The status issued last counts (`../Responses.ts`); an invoice without one
 * yet is `submitted`, PENDING.
 *
 * Statuses are gathered first (per invoice with a status: its key, a few numbers, and reasons and
 * notes shared through an interner or cut to about 1 KiB each, `keptText`), then invoices are
 * read as a stream, so an inbox syncs in memory bounded by its statuses, not its documents. A
 * status that joins no invoice is reported at the end, not dropped.
 */
import { DateTime, Duration, Effect, Schema, Stream } from "effect"
import type { FetchedDocument } from "../../../core/receivables/domain/PairSync.ts"
import {
  configOf,
  type PairToFetch,
  type PortalConnector,
  whenApplied
} from "../../../core/receivables/ports/PortalConnector.ts"
import { childAt } from "../cxml/Xml.ts"
import { type InboxEvent, interner, locator, notReadReport, xmlEventsIn, xmlFilesOf } from "../cxml/XmlFiles.ts"
import { type Inbox, planWhole } from "../inbox/Inbox.ts"
import { SftpSettings } from "../inbox/SftpInbox.ts"
import { oneInbox, openInbox } from "../inbox/Source.ts"
import { invoicePaths, text, type UblInvoice, ublInvoice } from "../peppol/Ubl.ts"
import { codeOfRank, invoiceCopies, isLater, latestOf, referenceKey, referenceText } from "../Responses.ts"
import { unreadableDocument } from "../Unreadable.ts"
import { cdarPaths, cdarRoot, type LifecycleStatus, lesserStatus, statusesOf } from "./Cdar.ts"
import { ciiInvoice, ciiPaths, creditNoteTypes } from "./Cii.ts"
import { type Cashed, lifecycleCodes, lifecycleText, noStatusText, statusMapping } from "./LifecycleCodes.ts"

export const FrLifecycleConfig = Schema.Struct({
  /** The local directory the pair's documents arrive in (`*.xml`, as the platform delivers them); or `sftp`. */
  inbox: Schema.optionalKey(Schema.String.check(Schema.isNonEmpty())),
  /** The documents' directory on an SFTP server, in place of `inbox`. */
  sftp: Schema.optionalKey(SftpSettings)
}).check(oneInbox("inbox"))
export type FrLifecycleConfig = typeof FrLifecycleConfig.Type

const kind = "fr-lifecycle"

const ciiRoot = "CrossIndustryInvoice"

const decimal = (cents: number, currency: string | undefined, invoiceCurrency: string) =>
  `${(cents / 100).toFixed(2)}${currency === undefined || currency === invoiceCurrency ? "" : ` ${currency}`}`

/** One invoice and its latest status as a document; unreadable values pass on, to be quarantined. */
export const documentOf = (read: UblInvoice, status: LifecycleStatus | undefined, file: string): FetchedDocument => {
  const metadata: Record<string, string> = { ...read.metadata, file_reference: file }
  let portalStatus = noStatusText
  if (status !== undefined) {
    const code = codeOfRank(lifecycleCodes, status.rank)
    metadata.response_code = code
    metadata.response_issued_at = new Date(status.at).toISOString()
    if (status.reasons !== undefined) metadata.response_reasons = status.reasons
    if (status.note !== undefined) metadata.response_note = status.note
    const amount = status.amountCents
    const remaining = status.remainingCents
    if (amount !== undefined && code === "206") {
      metadata.approved_amount = decimal(amount, status.amountCurrency, read.currency)
    }
    if (amount !== undefined && code === "212") {
      metadata.paid_amount = decimal(amount, status.amountCurrency, read.currency)
    }
    if (remaining !== undefined) metadata.remaining_amount = decimal(remaining, status.amountCurrency, read.currency)
    // Cashed in another currency cannot be compared with the invoice: not known to be all of it.
    // An amount still to pay (RAP) says what is left better than the invoice's amount can: one
    // 212 is sent per partial cash-in, so the last one's MEN alone may be less than the whole.
    const cashed: Cashed =
      amount === undefined
        ? "amount not given"
        : remaining !== undefined
          ? remaining === 0
            ? "in full"
            : "partially"
          : (status.amountCurrency !== undefined && status.amountCurrency !== read.currency) ||
              amount < read.amountCents
            ? "partially"
            : "in full"
    portalStatus = lifecycleText(code, cashed)
  }
  return {
    documentKey: read.number,
    vendorReceivableId: read.number || null,
    amountCents: read.amountCents,
    currency: read.currency,
    receivableDate: read.issueDate,
    dueDate: read.dueDate,
    portalStatus,
    poNumber: read.orderReference,
    metadata
  }
}

// The parts of a document each pass reads; everything else (lines, parties) is parsed and let go.
const wanted = [...new Set([...cdarPaths, ...invoicePaths, ...ciiPaths])]

const eventsIn = (inbox: Inbox, file: string, now: number, paths: ReadonlyArray<string>) =>
  xmlEventsIn(inbox, file, now, paths, { format: "XML", localNames: true })

/** What the inbox says before any invoice is read: latest statuses, which files to read again. */
const survey = Effect.fnUntraced(function* (inbox: Inbox, files: ReadonlyArray<string>, now: number) {
  const statuses = new Map<string, LifecycleStatus>()
  const toRead: Array<string> = []
  const intern = interner()
  for (const file of files) {
    // Files with invoices are read again for them; so are files with something to report.
    let again = false
    yield* Stream.runForEach(eventsIn(inbox, file, now, cdarPaths), (event) =>
      Effect.sync(() => {
        if (event._tag !== "Document" || event.root.name !== cdarRoot) {
          again = true
          return
        }
        for (const answer of statusesOf(event.root, intern)) {
          if ("problem" in answer) {
            again = true
            continue
          }
          const known = statuses.get(answer.invoice)
          if (known === undefined || isLater(answer.status, known, lesserStatus))
            statuses.set(answer.invoice, answer.status)
        }
      })
    )
    if (again) toRead.push(file)
  }
  return { statuses, toRead }
})

const fetchDocuments = Effect.fn("FrLifecycleConnector.fetch")(function* (pair: PairToFetch) {
  const config = yield* configOf({ kind, configSchema: FrLifecycleConfig }, pair.config)
  const now = DateTime.toEpochMillis(pair.now)
  const inbox = yield* openInbox(config.inbox, config.sftp, pair, (directory) => `the inbox ${directory}`)
  // An invoice and its statuses are in different files: when any file is new, all are read again.
  const plan = yield* planWhole(inbox, xmlFilesOf(yield* inbox.list))
  const { statuses, toRead } = yield* survey(inbox, plan.files, now)
  const copyOf = invoiceCopies()
  const documentsOf = (file: string, event: InboxEvent): ReadonlyArray<FetchedDocument> => {
    const reference = { file_reference: file }
    const notRead = notReadReport(file, event)
    if (notRead !== undefined) return notRead
    switch (event._tag) {
      case "Document": {
        const root = event.root
        const unreadable = (reasons: ReadonlyArray<string>) => [
          unreadableDocument(
            locator(file, event),
            reasons.map((reason) => `${reason} (the document from line ${event.line})`),
            reference
          )
        ]
        if (root.name === cdarRoot) {
          const problems = statusesOf(root, (value) => value).flatMap((answer) =>
            "problem" in answer ? [answer.problem] : []
          )
          return problems.length === 0 ? [] : unreadable(problems.slice(0, 20))
        }
        const typeCode = text(childAt(root, "ExchangedDocument/TypeCode")) ?? ""
        if (root.name === "CreditNote" || (root.name === ciiRoot && creditNoteTypes.has(typeCode))) {
          return unreadable([
            "a credit note: not a receivable, and fr-lifecycle does not net credit notes against their invoices (see its README)"
          ])
        }
        if (root.name !== "Invoice" && root.name !== ciiRoot) {
          return unreadable([
            `a ${root.name.slice(0, 64)} document: the inbox takes Invoice (UBL), CrossIndustryInvoice (CII, Factur-X) and CrossDomainAcknowledgementAndResponse (CDAR)`
          ])
        }
        const read = root.name === ciiRoot ? ciiInvoice(root) : ublInvoice(root)
        if (read.number === "") return unreadable([`a ${root.name} without its number`])
        const first = copyOf(read.number, read.issueDate)
        // An invoice sent again (a resend) is the same invoice: the first copy counts.
        if (first === read.issueDate) return []
        if (first !== undefined) {
          return unreadable([
            `the invoice ${read.number.slice(0, 64)} issued ${read.issueDate.slice(0, 32)}: its number was already read for the invoice issued ${first.slice(0, 32)}, and one number is one receivable`
          ])
        }
        const keys = [referenceKey(read.number, read.issueDate), referenceKey(read.number, undefined)]
        const status = latestOf(statuses.get(keys[0]!), statuses.get(keys[1]!), lesserStatus)
        // What joined is let go: the statuses left at the end joined no invoice, and are reported.
        for (const key of keys) statuses.delete(key)
        return [documentOf(read, status, file)]
      }
      default:
        return []
    }
  }
  // A status for an invoice the inbox does not hold (or of another issue date) changes nothing: reported, not dropped.
  const orphanStatuses = Stream.suspend(() =>
    Stream.fromIterable(
      [...statuses].map(([key, status]) => {
        const code = codeOfRank(lifecycleCodes, status.rank)
        return unreadableDocument(`status of ${referenceText(key)}`.slice(0, 256), [
          `the status ${code} ${lifecycleCodes[code].name} issued ${new Date(status.at).toISOString()} names the invoice ${referenceText(key)}, and no invoice read from the inbox has that number (and issue date)`
        ])
      })
    )
  )
  return Stream.fromIterable(toRead).pipe(
    Stream.flatMap((file) =>
      eventsIn(inbox, file, now, wanted).pipe(
        Stream.map((event) => documentsOf(file, event)),
        Stream.flattenIterable
      )
    ),
    Stream.concat(orphanStatuses),
    // Only a fetch that read every file, once the engine has applied it, counts them as read.
    Stream.concat(Stream.fromEffectDrain(whenApplied(pair, plan.done)))
  )
})

export const connector = {
  kind,
  configSchema: FrLifecycleConfig,
  statusMapping,
  defaultInterval: Duration.minutes(15),
  fetch: (pair) => Stream.unwrap(fetchDocuments(pair))
} satisfies PortalConnector
