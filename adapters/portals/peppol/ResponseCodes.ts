/**
 * Peppol BIS Invoice Response 3.0: the buyer's `ResponseCode` (a subset of UNCL 4343) mapped to
 * the six statuses by code, never by wording. The reasons are in `docs/status-policy.md`
 * ("Coded statuses"): `PD` is the only code that may be `PAID`, and not with the `PPD`
 * clarification (a partial payment); `AP` ("accepted, next step is payment") is `APPROVED`. A
 * code outside the subset is not a status at all: the connector reports the response instead of
 * guessing. Pure.
 */
import { makeStatusMapping, type Status } from "../../../core/receivables/domain/Status.ts"

export const responseCodes = {
  AB: { name: "Acknowledged", status: "PENDING", rank: 1 },
  IP: { name: "In process", status: "PENDING", rank: 2 },
  UQ: { name: "Under query", status: "DISPUTED", rank: 3 },
  CA: { name: "Conditionally accepted", status: "PENDING", rank: 4 },
  RE: { name: "Rejected", status: "DISPUTED", rank: 5 },
  AP: { name: "Accepted", status: "APPROVED", rank: 6 },
  PD: { name: "Paid", status: "PAID", rank: 7 }
} as const satisfies Record<string, { readonly name: string; readonly status: Status; readonly rank: number }>

export type ResponseCode = keyof typeof responseCodes

/** The status reasons of the Peppol code list (OPStatusReason), for metadata. */
export const statusReasons: Readonly<Record<string, string>> = {
  NON: "No issue",
  REF: "References incorrect",
  LEG: "Legal information incorrect",
  REC: "Receiver unknown",
  QUA: "Item quality insufficient",
  DEL: "Delivery issues",
  PRI: "Prices incorrect",
  QTY: "Quantity incorrect",
  ITM: "Items incorrect",
  PAY: "Payment terms incorrect",
  UNR: "Not recognized",
  FIN: "Finance terms not accepted",
  PPD: "Partially paid",
  OTH: "Other"
}

export const isResponseCode = (code: string): code is ResponseCode => Object.hasOwn(responseCodes, code)

/** What an invoice without any response yet shows: sent to the buyer, nothing heard. */
export const noResponseText = "sent"

/** `PD` with the `PPD` clarification: part of the invoice paid, the rest still owed. */
export const partialPaymentText = "PD Paid (PPD partially paid)"

/** The `portal_status` of a response: its code and name (`AP Accepted`). */
export const responseText = (code: ResponseCode, partiallyPaid: boolean): string =>
  code === "PD" && partiallyPaid ? partialPaymentText : `${code} ${responseCodes[code].name}`

/**
 * An invoice its credit notes cancel entirely: nothing is owed, whatever the buyer answered
 * (the answer is kept as `metadata.response_status`).
 */
export const creditedText = "credited in full"

export const statusMapping = makeStatusMapping({
  [noResponseText]: "PENDING",
  [creditedText]: "DISPUTED",
  [partialPaymentText]: "APPROVED",
  ...Object.fromEntries(Object.entries(responseCodes).map(([code, { name, status }]) => [`${code} ${name}`, status]))
})
