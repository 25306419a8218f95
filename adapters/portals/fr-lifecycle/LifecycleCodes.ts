/**
 * The French e-invoicing lifecycle (statuses 200 to 213, exchanged between platforms in CDAR
 * messages) mapped to the six statuses by code, never by wording. The reasons are in
 * `docs/status-policy.md` ("Coded statuses"): only 212 "cashed" (encaissée) says the money
 * arrived, so it is the only code that may be `PAID`, and not when its amount is below the
 * invoice's; 211 "payment transmitted" is money in flight, `APPROVED`, as every "payment sent"
 * is; 205 "approved" is `APPROVED`. A code outside the list is not a status: the connector
 * reports the message instead of guessing. Pure.
 */
import { makeStatusMapping, type Status } from "../../../core/receivables/domain/Status.ts"

export const lifecycleCodes = {
  "200": { name: "Submitted", status: "PENDING", rank: 1 },
  "201": { name: "Issued by the platform", status: "PENDING", rank: 2 },
  "202": { name: "Received by the platform", status: "PENDING", rank: 3 },
  "203": { name: "Made available", status: "PENDING", rank: 4 },
  "204": { name: "Taken in charge", status: "PENDING", rank: 5 },
  "209": { name: "Completed", status: "PENDING", rank: 6 },
  "208": { name: "Suspended", status: "DISPUTED", rank: 7 },
  "207": { name: "In dispute", status: "DISPUTED", rank: 8 },
  "206": { name: "Partially approved", status: "DISPUTED", rank: 9 },
  "205": { name: "Approved", status: "APPROVED", rank: 10 },
  "211": { name: "Payment transmitted", status: "APPROVED", rank: 11 },
  "212": { name: "Cashed", status: "PAID", rank: 12 },
  "213": { name: "Rejected", status: "DISPUTED", rank: 13 },
  "210": { name: "Refused", status: "DISPUTED", rank: 14 }
} as const satisfies Record<string, { readonly name: string; readonly status: Status; readonly rank: number }>

export type LifecycleCode = keyof typeof lifecycleCodes

export const isLifecycleCode = (code: string): code is LifecycleCode => Object.hasOwn(lifecycleCodes, code)

/** What an invoice without any lifecycle message yet shows. */
export const noStatusText = "submitted"

/** 212 for less than the invoice's amount: part of it cashed, the rest still owed. */
export const partiallyCashedText = "212 Cashed (partially)"

/** The `portal_status` of a lifecycle status: its code and name (`205 Approved`). */
export const lifecycleText = (code: LifecycleCode, partiallyCashed: boolean): string =>
  code === "212" && partiallyCashed ? partiallyCashedText : `${code} ${lifecycleCodes[code].name}`

export const statusMapping = makeStatusMapping({
  [noStatusText]: "PENDING",
  [partiallyCashedText]: "APPROVED",
  ...Object.fromEntries(Object.entries(lifecycleCodes).map(([code, { name, status }]) => [`${code} ${name}`, status]))
})
