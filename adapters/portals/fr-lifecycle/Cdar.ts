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
 *   per VAT rate, for 212; MAPTTC the amount approved with tax, for 206; `ram:ValueAmount`).
 *
 * Pure.
 */
import { parseAmountCents } from "../../../core/receivables/domain/PortalValues.ts"
import { childAt, childrenNamed, type XmlElement } from "../cxml/Xml.ts"
import { detached, moneyText } from "../cxml/XmlFiles.ts"
import { text } from "../peppol/Ubl.ts"
import { idNumber, type Response, referenceKey } from "../Responses.ts"
import { cefactDate, cefactInstant } from "./Cii.ts"
import { isLifecycleCode, lifecycleCodes } from "./LifecycleCodes.ts"

/** The root element of a CDAR message, by local name. */
export const cdarRoot = "CrossDomainAcknowledgementAndResponse"

/** A CDAR message's elements below its root that the connector reads. */
export const cdarPaths = ["ExchangedDocument/ID", "ExchangedDocument/IssueDateTime", "AcknowledgementDocument"]

/** An invoice's status from one message, kept compact: one per invoice of the inbox is held during a fetch. */
export interface LifecycleStatus extends Response {
  /** For 212, what was cashed; for 206, what was approved (with tax); in cents, when the message says. */
  readonly amountCents: number | undefined
  readonly amountCurrency: string | undefined
  readonly reasons: string | undefined
  readonly note: string | undefined
}

export type StatusOrProblem =
  | { readonly invoice: string; readonly status: LifecycleStatus }
  | { readonly problem: string }

// Which characteristic carries the amount a code keeps (BR-FR-CDV-CL-11's MDT-207 list).
const amountType: Readonly<Record<string, string>> = { "212": "MEN", "206": "MAPTTC" }

const joined = (parts: ReadonlyArray<string | undefined>) => {
  const kept = parts.filter((part) => part !== undefined && part !== "").join("; ")
  return kept === "" ? undefined : kept
}

const statusOf = (reference: XmlElement, at: number, id: number, intern: (text: string) => string): StatusOrProblem => {
  const number = text(childAt(reference, "IssuerAssignedID"))
  if (number === undefined) return { problem: "a ReferenceReferencedDocument without the IssuerAssignedID it answers" }
  const code = text(childAt(reference, "ProcessConditionCode")) ?? ""
  if (!isLifecycleCode(code)) {
    return {
      problem: `the status of ${number.slice(0, 64)} has the code "${code.slice(0, 16)}", not one of the lifecycle codes mapped (${Object.keys(lifecycleCodes).join(", ")})`
    }
  }
  if (Number.isNaN(at)) return { problem: `the status of ${number.slice(0, 64)} has no readable IssueDateTime` }
  const details = childrenNamed(reference, "SpecifiedDocumentStatus")
  const reasons = joined(
    details.map((detail) => joined([text(childAt(detail, "ReasonCode")), text(childAt(detail, "Reason"))]))
  )
  const note = joined(
    details.flatMap((detail) =>
      childrenNamed(detail, "IncludedNote").map((included) => text(childAt(included, "Content")))
    )
  )
  const kept = amountType[code]
  const amounts =
    kept === undefined
      ? []
      : details
          .flatMap((detail) => childrenNamed(detail, "SpecifiedDocumentCharacteristic"))
          .filter((characteristic) => text(childAt(characteristic, "TypeCode")) === kept)
          .map((characteristic) => childAt(characteristic, "ValueAmount"))
  const cents = amounts.map((amount) => parseAmountCents(moneyText(amount) ?? "", "."))
  if (cents.some((value) => value === undefined)) {
    return { problem: `the status ${code} of ${number.slice(0, 64)} has an amount (${kept}) that is not a number` }
  }
  const currency = amounts.map((amount) => amount?.attributes.currencyID?.trim()).find((value) => value !== undefined)
  return {
    invoice: detached(referenceKey(number, cefactDate(childAt(reference, "FormattedIssueDateTime")))),
    status: {
      at,
      rank: lifecycleCodes[code].rank,
      id,
      amountCents: amounts.length === 0 ? undefined : cents.reduce<number>((sum, value) => sum + value!, 0),
      amountCurrency: currency === undefined ? undefined : intern(currency),
      reasons: reasons === undefined ? undefined : intern(reasons),
      note: note === undefined ? undefined : intern(note)
    }
  }
}

/**
 * The statuses one CDAR message gives, one per invoice it references, or why each cannot count.
 * The status's time is the acknowledgement's own `IssueDateTime`, else the message's.
 */
export const statusesOf = (root: XmlElement, intern: (text: string) => string): ReadonlyArray<StatusOrProblem> => {
  const acknowledgement = childAt(root, "AcknowledgementDocument")
  const references = childrenNamed(acknowledgement, "ReferenceReferencedDocument")
  if (references.length === 0) return [{ problem: "a CDAR message without a ReferenceReferencedDocument" }]
  const own = childAt(acknowledgement, "IssueDateTime")
  const at = cefactInstant(own ?? childAt(root, "ExchangedDocument/IssueDateTime"))
  const id = idNumber(text(childAt(root, "ExchangedDocument/ID")) ?? "")
  return references.map((reference) => statusOf(reference, at, id, intern))
}
