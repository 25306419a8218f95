/**
 * The `peppol` connector: a vendor's Peppol documents in an inbox, a local directory or one on an
 * SFTP server (`../inbox/`). The vendor's own
 * invoices (UBL 2.1 `Invoice`, Peppol BIS Billing 3.0) give the amounts and dates; the buyer's
 * Invoice Responses (Peppol BIS Invoice Response 3.0, a UBL `ApplicationResponse`) give each
 * invoice's state as a code (`ResponseCodes.ts`), joined by the referenced invoice (its number
 * and, when the response gives it, its issue date). The response the buyer issued last counts
 * (`../Responses.ts`); an invoice without one yet is `sent`, PENDING. Credit notes are not
 * receivables: each is netted against the invoice it credits (docs/decisions.md, Connectors).
 *
 * Responses and credit notes are gathered first (per invoice with one: its key, a few numbers,
 * and reasons and notes shared through an interner), then invoices are read as a stream, so
 * memory grows with the responses held, not with the documents.
 */
import { DateTime, Duration, Effect, Schema, Stream } from "effect"
import type { FetchedDocument } from "../../../core/receivables/domain/PairSync.ts"
import {
  configOf,
  type PairToFetch,
  type PortalConnector,
  whenApplied
} from "../../../core/receivables/ports/PortalConnector.ts"
import { childAt, childrenNamed, type XmlElement } from "../cxml/Xml.ts"
import {
  detached,
  type InboxEvent,
  interner,
  locator,
  notReadReport,
  xmlEventsIn,
  xmlFilesOf
} from "../cxml/XmlFiles.ts"
import { type Inbox, planWhole } from "../inbox/Inbox.ts"
import { SftpSettings } from "../inbox/SftpInbox.ts"
import { oneInbox, openInbox } from "../inbox/Source.ts"
import {
  ascending,
  codeOfRank,
  idNumber,
  invoiceCopies,
  isLater,
  type Lesser,
  latestOf,
  referenceKey,
  referenceText
} from "../Responses.ts"
import { unreadableDocument } from "../Unreadable.ts"
import {
  creditedText,
  isResponseCode,
  noResponseText,
  responseCodes,
  responseText,
  statusMapping,
  statusReasons
} from "./ResponseCodes.ts"
import { creditNotePaths, invoicePaths, text, ublCreditNote, ublInvoice } from "./Ubl.ts"

export const PeppolConfig = Schema.Struct({
  /** The local directory the pair's Peppol documents arrive in (`*.xml`, as the access point delivers them); or `sftp`. */
  inbox: Schema.optionalKey(Schema.String.check(Schema.isNonEmpty())),
  /** The documents' directory on an SFTP server, in place of `inbox`. */
  sftp: Schema.optionalKey(SftpSettings)
}).check(oneInbox("inbox"))
export type PeppolConfig = typeof PeppolConfig.Type

const kind = "peppol"

/** A buyer's response, kept compact: one per invoice of the inbox is held during a fetch. */
export interface LatestResponse {
  readonly at: number
  readonly rank: number
  readonly id: number
  readonly partiallyPaid: boolean
  readonly reasons: string | undefined
  readonly note: string | undefined
}

/** Of two responses with the same time, code and id, the one that says less happened: a partial payment first. */
const lesserResponse: Lesser<LatestResponse> = (a, b) =>
  ascending(a.partiallyPaid ? 0 : 1, b.partiallyPaid ? 0 : 1) ||
  ascending(a.reasons ?? "", b.reasons ?? "") ||
  ascending(a.note ?? "", b.note ?? "")

// "12:30:00", "12:30:00.5", "12:30:00+01:00", "12:30:00Z": a time without an offset is read as UTC.
const instant = (date: string, time: string | undefined) => {
  if (!/^\d{4}-\d{2}-\d{2}$/.test(date)) return Number.NaN
  const clock = time ?? "00:00:00"
  if (!/^\d{2}:\d{2}:\d{2}(\.\d+)?(Z|[+-]\d{2}:\d{2})?$/.test(clock)) return Number.NaN
  return Date.parse(`${date}T${clock}${/(Z|[+-]\d{2}:\d{2})$/.test(clock) ? "" : "Z"}`)
}

/** A response about one invoice, or why it cannot count. */
export const responseOf = (
  root: XmlElement,
  intern: (text: string) => string
): { readonly invoice: string; readonly response: LatestResponse } | { readonly problem: string } => {
  const documentResponse = childAt(root, "DocumentResponse")
  const reference = childAt(documentResponse, "DocumentReference")
  const number = text(childAt(reference, "ID"))
  if (number === undefined) return { problem: "an ApplicationResponse without the DocumentReference ID it answers" }
  const code = text(childAt(documentResponse, "Response/ResponseCode")) ?? ""
  if (!isResponseCode(code)) {
    return {
      problem: `the response to ${number} has the code "${code.slice(0, 16)}", not one of Peppol's invoice response codes (${Object.keys(responseCodes).join(", ")})`
    }
  }
  const date = text(childAt(root, "IssueDate")) ?? ""
  const time = text(childAt(root, "IssueTime"))
  const at = instant(date, time)
  if (Number.isNaN(at)) {
    return { problem: `the response to ${number} has no readable IssueDate and IssueTime ("${date}" "${time ?? ""}")` }
  }
  const statuses = childrenNamed(childAt(documentResponse, "Response"), "Status")
  const reasonCodes = statuses.map((status) => text(childAt(status, "StatusReasonCode")))
  const reasons = statuses
    .map((status, i) => {
      const reasonCode = reasonCodes[i]
      const said = text(childAt(status, "StatusReason"))
      const named = reasonCode === undefined ? undefined : `${reasonCode} ${statusReasons[reasonCode] ?? ""}`.trim()
      return [named, said].filter((part) => part !== undefined).join(": ")
    })
    .filter((reason) => reason !== "")
    .join("; ")
  const notes = childrenNamed(root, "Note")
    .map(text)
    .filter((note) => note !== undefined)
    .join("; ")
  return {
    invoice: detached(referenceKey(number, text(childAt(reference, "IssueDate")))),
    response: {
      at,
      rank: responseCodes[code].rank,
      id: idNumber(text(childAt(root, "ID")) ?? ""),
      partiallyPaid: code === "PD" && reasonCodes.includes("PPD"),
      reasons: reasons === "" ? undefined : intern(reasons),
      note: notes === "" ? undefined : intern(notes)
    }
  }
}

/** What the credit notes of the inbox take off one invoice. */
interface Credit {
  readonly cents: number
  readonly currency: string
  readonly numbers: ReadonlyArray<string>
}

/** One invoice, its latest response and its credit notes, as a document; unreadable values pass on, to be quarantined. */
export const documentOf = (
  invoice: XmlElement,
  response: LatestResponse | undefined,
  credit: Credit | undefined,
  file: string
): FetchedDocument => {
  const read = ublInvoice(invoice)
  const metadata: Record<string, string> = { ...read.metadata, file_reference: file }
  if (response !== undefined) {
    metadata.response_code = codeOfRank(responseCodes, response.rank)
    metadata.response_issued_at = new Date(response.at).toISOString()
    if (response.reasons !== undefined) metadata.response_reasons = response.reasons
    if (response.note !== undefined) metadata.response_note = response.note
  }
  // A credit note in another currency cannot be netted: it is listed, not counted.
  const netted = credit !== undefined && credit.currency === read.currency
  if (credit !== undefined) {
    metadata.credit_notes = credit.numbers.join(", ")
    if (netted) metadata.credited_amount = (credit.cents / 100).toFixed(2)
  }
  const status =
    response === undefined
      ? noResponseText
      : responseText(codeOfRank(responseCodes, response.rank), response.partiallyPaid)
  const creditedInFull = netted && credit.cents >= read.amountCents
  if (creditedInFull) metadata.response_status = status
  return {
    documentKey: read.number,
    vendorReceivableId: read.number || null,
    amountCents: read.amountCents,
    currency: read.currency,
    receivableDate: read.issueDate,
    dueDate: read.dueDate,
    portalStatus: creditedInFull ? creditedText : status,
    poNumber: read.orderReference,
    metadata
  }
}

// The parts of a document each pass reads; everything else (lines, parties) is parsed and let go.
const surveyed = ["ID", "IssueDate", "IssueTime", "Note", "DocumentResponse", ...creditNotePaths]
const wanted = [...new Set([...surveyed, ...invoicePaths])]

const eventsIn = (inbox: Inbox, file: string, now: number, paths: ReadonlyArray<string>) =>
  xmlEventsIn(inbox, file, now, paths, { format: "UBL", localNames: true })

/** What the inbox says before any invoice is read: latest responses, credit notes, which files to read again. */
const survey = Effect.fnUntraced(function* (inbox: Inbox, files: ReadonlyArray<string>, now: number) {
  const responses = new Map<string, LatestResponse>()
  const credits = new Map<string, Credit>()
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
        const root = event.root
        if (root.name === "ApplicationResponse") {
          const answer = responseOf(root, intern)
          if ("problem" in answer) {
            again = true
            return
          }
          const known = responses.get(answer.invoice)
          if (known === undefined || isLater(answer.response, known, lesserResponse))
            responses.set(answer.invoice, answer.response)
        } else if (root.name === "CreditNote") {
          const note = ublCreditNote(root)
          if (note.invoice === undefined || !Number.isInteger(note.amountCents)) {
            again = true
            return
          }
          const key = detached(referenceKey(note.invoice.number, note.invoice.issueDate))
          const known = credits.get(key)
          // A credit note sent again is the same credit note: it counts once.
          if (known?.numbers.includes(note.number)) return
          credits.set(key, {
            cents: (known?.cents ?? 0) + note.amountCents,
            currency: known?.currency ?? detached(note.currency),
            numbers: [...(known?.numbers ?? []), detached(note.number)]
          })
        } else again = true
      })
    )
    if (again) toRead.push(file)
  }
  return { responses, credits, toRead }
})

const fetchDocuments = Effect.fn("PeppolConnector.fetch")(function* (pair: PairToFetch) {
  const config = yield* configOf({ kind, configSchema: PeppolConfig }, pair.config)
  const now = DateTime.toEpochMillis(pair.now)
  const inbox = yield* openInbox(config.inbox, config.sftp, pair, (directory) => `the inbox ${directory}`)
  // Responses and credit notes are in other files than their invoices: when any file is new, all are read again.
  const plan = yield* planWhole(inbox, xmlFilesOf(yield* inbox.list))
  const { responses, credits, toRead } = yield* survey(inbox, plan.files, now)
  const copyOf = invoiceCopies()
  const credited = new Set<string>()
  const creditOf = (number: string, issueDate: string) => {
    const keys = [referenceKey(number, issueDate), referenceKey(number, undefined)]
    const found = keys
      .filter((key) => credits.has(key))
      .map((key) => {
        // Only the keys of credit notes are remembered: a set of every invoice would grow with the inbox.
        credited.add(key)
        return credits.get(key)!
      })
    if (found.length < 2) return found[0]
    const [dated, undated] = found as [Credit, Credit]
    return dated.currency === undated.currency
      ? {
          cents: dated.cents + undated.cents,
          currency: dated.currency,
          numbers: [...dated.numbers, ...undated.numbers]
        }
      : dated
  }
  const documentsOf = (file: string, event: InboxEvent): ReadonlyArray<FetchedDocument> => {
    const reference = { file_reference: file }
    const notRead = notReadReport(file, event)
    if (notRead !== undefined) return notRead
    switch (event._tag) {
      case "Document": {
        const root = event.root
        const unreadable = (reason: string) => [
          unreadableDocument(locator(file, event), [`${reason} (the document from line ${event.line})`], reference)
        ]
        if (root.name === "ApplicationResponse") {
          const answer = responseOf(root, (value) => value)
          return "problem" in answer ? unreadable(answer.problem) : []
        }
        if (root.name === "CreditNote") {
          const note = ublCreditNote(root)
          if (note.invoice === undefined)
            return unreadable(`the credit note ${note.number} names no invoice it credits`)
          return Number.isInteger(note.amountCents)
            ? []
            : unreadable(`the credit note ${note.number} has no readable PayableAmount`)
        }
        if (root.name !== "Invoice") {
          return unreadable(
            `a ${root.name.slice(0, 64)} document: the inbox takes Invoice, CreditNote and ApplicationResponse`
          )
        }
        const number = text(childAt(root, "ID")) ?? ""
        if (number === "") return unreadable("an Invoice without an ID")
        const issueDate = text(childAt(root, "IssueDate")) ?? ""
        const first = copyOf(number, issueDate)
        // An invoice sent again (a resend) is the same invoice: the first copy counts.
        if (first === issueDate) return []
        if (first !== undefined) {
          return unreadable(
            `the invoice ${number.slice(0, 64)} issued ${issueDate.slice(0, 32)}: its number was already read for the invoice issued ${first.slice(0, 32)}, and one number is one receivable`
          )
        }
        const response = latestOf(
          responses.get(referenceKey(number, issueDate)),
          responses.get(referenceKey(number, undefined)),
          lesserResponse
        )
        return [documentOf(root, response, creditOf(number, issueDate), file)]
      }
      default:
        return []
    }
  }
  // Credit notes for invoices the inbox does not hold have nothing to reduce: reported, not dropped.
  const orphanCredits = Stream.suspend(() =>
    Stream.fromIterable(
      [...credits]
        .filter(([key]) => !credited.has(key))
        .map(([key, credit]) =>
          unreadableDocument(`credit notes ${credit.numbers.join(", ")}`.slice(0, 256), [
            `the credit notes ${credit.numbers.join(", ")} credit the invoice ${referenceText(key)}, which is not in the inbox`
          ])
        )
    )
  )
  return Stream.fromIterable(toRead).pipe(
    Stream.flatMap((file) =>
      eventsIn(inbox, file, now, wanted).pipe(
        Stream.map((event) => documentsOf(file, event)),
        Stream.flattenIterable
      )
    ),
    Stream.concat(orphanCredits),
    // Only a fetch that read every file, once the engine has applied it, counts them as read.
    Stream.concat(Stream.fromEffectDrain(whenApplied(pair, plan.done)))
  )
})

export const connector = {
  kind,
  configSchema: PeppolConfig,
  statusMapping,
  defaultInterval: Duration.minutes(15),
  fetch: (pair) => Stream.unwrap(fetchDocuments(pair))
} satisfies PortalConnector
