/**
 * The lifecycle statuses of a CDAR message (UN/CEFACT CrossDomainAcknowledgementAndResponse
 * D22B, the French "CDV" Flow 6 profile). Followed: the FNFE-MPE's business rules for it
 * (BR-FR-CDV schematron, v1.4.0) and the AFNOR XP Z12-012 / Z12-014 structure they check:
 *
 * - `rsm:ExchangedDocument`: the message's `ram:ID` and `ram:IssueDateTime` (MDT-4, MDG-4);
 * - `rsm:AcknowledgementDocument`: its own `ram:IssueDateTime` when given (the status's time),
 *   and one `ram:ReferenceReferencedDocument` per invoice it answers, each with the invoice's
 *   number `ram:IssuerAssignedID` (MDT-87) and issue date `ram:FormattedIssueDateTime` (MDG-35),
 *   the lifecycle code `ram:ProcessConditionCode` (MDT-105: 200 ... 213; `ram:StatusCode` is
 *   UNCL 1373's coarser code, MDT-88, not read), and `ram:SpecifiedDocumentStatus` blocks with
 *   the reason (`ram:ReasonCode`, `ram:Reason`), notes (`ram:IncludedNote/ram:Content`) and
 *   amounts (`ram:SpecifiedDocumentCharacteristic`: `ram:TypeCode` MEN the amount cashed, one
 *   per VAT rate, and RAP the amount still to pay, for 212; MAPTTC the amount approved with tax,
 *   for 206; `ram:ValueAmount`, an `xs:decimal`).
 *
 * A message may hold several `rsm:AcknowledgementDocument` blocks (one per invoice or payment it
 * answers): each is read.
 *
 * Pure.
 */
import { childAt, childrenNamed, type XmlElement } from "../cxml/Xml.ts"
import { decimalCents, detached } from "../cxml/XmlFiles.ts"
import { text } from "../peppol/Ubl.ts"
import { ascending, idNumber, type Lesser, type Response, referenceKey } from "../Responses.ts"
import { cefactDate, cefactInstant } from "./Cii.ts"
import { isLifecycleCode, lifecycleCodes } from "./LifecycleCodes.ts"

/** The root element of a CDAR message, by local name. */
export const cdarRoot = "CrossDomainAcknowledgementAndResponse"

const reference = "AcknowledgementDocument/ReferenceReferencedDocument"
const detail = `${reference}/SpecifiedDocumentStatus`

/** A CDAR message's elements below its root that the connector reads; everything else is let go. */
export const cdarPaths = [
  "ExchangedDocument/ID",
  "ExchangedDocument/IssueDateTime",
  "AcknowledgementDocument/IssueDateTime",
  `${reference}/IssuerAssignedID`,
  `${reference}/ProcessConditionCode`,
  `${reference}/FormattedIssueDateTime`,
  `${detail}/ReasonCode`,
  `${detail}/Reason`,
  `${detail}/IncludedNote/Content`,
  `${detail}/SpecifiedDocumentCharacteristic/TypeCode`,
  `${detail}/SpecifiedDocumentCharacteristic/ValueAmount`
]

/**
 * An invoice's status from one message, kept compact: one per invoice of the inbox is held
 * during a fetch (five numbers, and three strings shared through the survey's interner or cut
 * to `keptText`).
 */
export interface LifecycleStatus extends Response {
  /** For 212, what was cashed (the sum of its MEN); for 206, what was approved (with tax); in cents, when the message says. */
  readonly amountCents: number | undefined
  /** For 212, what is still to pay (RAP), in cents, when the message says. */
  readonly remainingCents: number | undefined
  readonly amountCurrency: string | undefined
  readonly reasons: string | undefined
  readonly note: string | undefined
}

export type StatusOrProblem =
  | { readonly invoice: string; readonly status: LifecycleStatus }
  | { readonly problem: string }

// Which characteristic carries the amount a code keeps (BR-FR-CDV-CL-11's MDT-207 list).
const amountType: Readonly<Record<string, string>> = { "212": "MEN", "206": "MAPTTC" }

/**
 * The characters of a status's reasons, and of its notes, kept: a platform may write pages of
 * them, and every invoice's status is held through a fetch; a reader needs the first lines.
 */
const keptText = 1_024

const joined = (parts: ReadonlyArray<string | undefined>) => {
  const kept = parts.filter((part) => part !== undefined && part !== "").join("; ")
  return kept === "" ? undefined : kept.length > keptText ? `${kept.slice(0, keptText - 1)}…` : kept
}

/** The amounts of one type a status's characteristics carry, in cents, all in one currency; or why not. */
const amountsOf = (
  characteristics: ReadonlyArray<XmlElement>,
  type: string
): { readonly cents: number | undefined; readonly currency: string | undefined } | { readonly problem: string } => {
  const amounts = characteristics
    .filter((characteristic) => text(childAt(characteristic, "TypeCode")) === type)
    .map((characteristic) => childAt(characteristic, "ValueAmount"))
  const currencies = [...new Set(amounts.flatMap((amount) => amount?.attributes.currencyID?.trim() || []))]
  if (currencies.length > 1)
    return { problem: `amounts (${type}) in several currencies (${currencies.join(", ")}), which cannot be added` }
  let cents: number | undefined
  for (const amount of amounts) {
    const read = decimalCents(amount?.text ?? "", currencies[0])
    if ("problem" in read) return { problem: `an amount (${type}) that cannot be read: ${read.problem}` }
    if (read.cents < 0)
      return {
        problem: `a negative amount (${type} ${amount?.text.trim().slice(0, 32)}): a reversal is not read as money received`
      }
    cents = (cents ?? 0) + read.cents
  }
  return { cents, currency: currencies[0] }
}

const statusOf = (reference: XmlElement, at: number, id: number, intern: (text: string) => string): StatusOrProblem => {
  const number = text(childAt(reference, "IssuerAssignedID"))
  if (number === undefined) return { problem: "a ReferenceReferencedDocument without the IssuerAssignedID it answers" }
  const shown = number.slice(0, 64)
  const code = text(childAt(reference, "ProcessConditionCode")) ?? ""
  if (!isLifecycleCode(code)) {
    return {
      problem: `the status of ${shown} has the code "${code.slice(0, 16)}", not one of the lifecycle codes mapped (${Object.keys(lifecycleCodes).join(", ")})`
    }
  }
  if (Number.isNaN(at)) return { problem: `the status of ${shown} has no readable IssueDateTime` }
  // A date given but unreadable is not "no date": read as none, the status would join the number's invoice of any year.
  const dated = childAt(reference, "FormattedIssueDateTime")
  const invoiceDate = cefactDate(dated)
  if (dated !== undefined && invoiceDate === undefined) {
    return {
      problem: `the status ${code} of ${shown} names its invoice's issue date (FormattedIssueDateTime) in a form that is not a date`
    }
  }
  const details = childrenNamed(reference, "SpecifiedDocumentStatus")
  const reasons = joined(
    details.map((detail) => joined([text(childAt(detail, "ReasonCode")), text(childAt(detail, "Reason"))]))
  )
  const note = joined(
    details.flatMap((detail) =>
      childrenNamed(detail, "IncludedNote").map((included) => text(childAt(included, "Content")))
    )
  )
  const characteristics = details.flatMap((detail) => childrenNamed(detail, "SpecifiedDocumentCharacteristic"))
  const kept = amountType[code]
  const amount = kept === undefined ? { cents: undefined, currency: undefined } : amountsOf(characteristics, kept)
  const remaining = code === "212" ? amountsOf(characteristics, "RAP") : { cents: undefined, currency: undefined }
  if ("problem" in amount) return { problem: `the status ${code} of ${shown} has ${amount.problem}` }
  if ("problem" in remaining) return { problem: `the status ${code} of ${shown} has ${remaining.problem}` }
  const currencies = [...new Set([amount.currency, remaining.currency].filter((currency) => currency !== undefined))]
  if (currencies.length > 1) {
    return { problem: `the status ${code} of ${shown} has amounts in several currencies (${currencies.join(", ")})` }
  }
  const currency = currencies[0]
  return {
    invoice: detached(referenceKey(number, invoiceDate)),
    status: {
      at,
      rank: lifecycleCodes[code].rank,
      id,
      amountCents: amount.cents,
      remainingCents: remaining.cents,
      amountCurrency: currency === undefined ? undefined : intern(currency),
      reasons: reasons === undefined ? undefined : intern(reasons),
      note: note === undefined ? undefined : intern(note)
    }
  }
}

/**
 * Of two statuses with the same time, code and message id, the one that says less happened: a
 * 212 without its amount, then the one with more still to pay, then the smaller amount; then any
 * difference at all, so that only identical statuses tie.
 */
export const lesserStatus: Lesser<LifecycleStatus> = (a, b) =>
  ascending(a.amountCents === undefined ? 0 : 1, b.amountCents === undefined ? 0 : 1) ||
  // Nothing said of what is left lies between a cent left and none: it may be either.
  ascending(b.remainingCents ?? 0.5, a.remainingCents ?? 0.5) ||
  ascending(a.amountCents ?? 0, b.amountCents ?? 0) ||
  ascending(a.amountCurrency ?? "", b.amountCurrency ?? "") ||
  ascending(a.reasons ?? "", b.reasons ?? "") ||
  ascending(a.note ?? "", b.note ?? "")

/**
 * The statuses one CDAR message gives, one per invoice each of its acknowledgements references,
 * or why each cannot count. A status's time is its acknowledgement's own `IssueDateTime`, else
 * the message's.
 */
export const statusesOf = (root: XmlElement, intern: (text: string) => string): ReadonlyArray<StatusOrProblem> => {
  const acknowledgements = childrenNamed(root, "AcknowledgementDocument")
  const id = idNumber(text(childAt(root, "ExchangedDocument/ID")) ?? "")
  const issued = childAt(root, "ExchangedDocument/IssueDateTime")
  const statuses = acknowledgements.flatMap((acknowledgement) => {
    const at = cefactInstant(childAt(acknowledgement, "IssueDateTime") ?? issued)
    return childrenNamed(acknowledgement, "ReferenceReferencedDocument").map((reference) =>
      statusOf(reference, at, id, intern)
    )
  })
  return statuses.length === 0 ? [{ problem: "a CDAR message without a ReferenceReferencedDocument" }] : statuses
}
