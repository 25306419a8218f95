/**
 * The French e-invoicing lifecycle (the statuses platforms exchange in CDAR messages, Flow 6)
 * mapped to the six statuses by code, never by wording. The table and the reason for each row
 * are in `docs/status-policy.md` ("Coded statuses"): `212` (cashed, the seller's own platform
 * saying the money arrived) is the only code that may be `PAID`, and only when the message shows
 * the whole amount cashed (not for less than the invoice's amount, not with an amount still to
 * pay, not without its amount); `205` (approved) and `211` (payment transmitted) are `APPROVED`; `206`
 * (partially approved) is `DISPUTED`. The rank orders codes issued at the same instant. A code
 * outside the table is not a status at all: the connector reports the message instead of
 * guessing. Pure.
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

/** What an invoice without any lifecycle status yet shows: deposited, nothing heard. */
export const noStatusText = "submitted"

/**
 * What a 212 shows of the money: all of it (`PAID`); part of it, the rest still owed (less than
 * the invoice's amount, or an amount still to pay, RAP, above zero); or no amount at all, which
 * proves nothing about the rest (platforms send one 212 per partial cash-in, each with its MEN).
 */
export type Cashed = "in full" | "partially" | "amount not given"

const partlyCashedTexts = {
  partially: "212 Cashed (partially)",
  "amount not given": "212 Cashed (amount not given)"
} as const

/** The `portal_status` of a status message: its code and name (`205 Approved`), for 212 with how much was cashed. */
export const lifecycleText = (code: LifecycleCode, cashed: Cashed = "in full"): string =>
  code === "212" && cashed !== "in full" ? partlyCashedTexts[cashed] : `${code} ${lifecycleCodes[code].name}`

export const statusMapping = makeStatusMapping({
  [noStatusText]: "PENDING",
  [partlyCashedTexts.partially]: "APPROVED",
  [partlyCashedTexts["amount not given"]]: "APPROVED",
  ...Object.fromEntries(Object.entries(lifecycleCodes).map(([code, { name, status }]) => [`${code} ${name}`, status]))
})
