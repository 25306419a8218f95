/**
 * The simulator: a debtor portal that does not exist, deterministic from a seed. Receivables
 * appear over simulated time and move along real-world paths (submitted, approved, scheduled,
 * paid; holds, disputes and rejections; factoring), with the variety of status wording real
 * portals show. What it answers is a pure function of its configuration and the sync's time, so
 * tests, the demo and the benchmarks can rely on it.
 */
import { DateTime, Duration, Effect, Schema, Stream } from "effect"
import type { FetchedDocument } from "../../../core/receivables/domain/PairSync.ts"
import { makeStatusMapping } from "../../../core/receivables/domain/Status.ts"
import {
  type PairToFetch,
  type PortalConnector,
  permanentFailure
} from "../../../core/receivables/ports/PortalConnector.ts"
import { isoDay } from "../../../core/shared/domain/IsoText.ts"

export const SimulatorConfig = Schema.Struct({
  seed: Schema.Int,
  /** How many receivables the portal will have issued in all. */
  receivables: Schema.Int.check(Schema.isBetween({ minimum: 0, maximum: 10_000_000 })),
  /** When the first was issued (ISO 8601); the rest follow, `perDay` a day. */
  startedAt: Schema.String.check(
    Schema.makeFilter((text: string) => !Number.isNaN(Date.parse(text)), { expected: "an ISO 8601 date-time" })
  ),
  perDay: Schema.Number.check(Schema.isGreaterThan(0))
})
export type SimulatorConfig = typeof SimulatorConfig.Type

const decodeConfig = Schema.decodeUnknownExit(SimulatorConfig)

// A small, fast, well-mixed PRNG (mulberry32) seeded per receivable.
const prng = (seed: number) => {
  let a = seed >>> 0
  return () => {
    a = (a + 0x6d2b79f5) >>> 0
    let t = a
    t = Math.imul(t ^ (t >>> 15), t | 1)
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61)
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296
  }
}

const pick = <A>(random: () => number, items: ReadonlyArray<A>): A => items[Math.floor(random() * items.length)]!

// Status wording, as portals write it: several spellings per stage.
const wording = {
  submitted: ["Submitted", "SUBMITTED", "submitted", "Pending Approval", "PENDING_APPROVAL", "In Process"],
  approved: ["Approved", "APPROVED FOR PAYMENT", "approved-for-payment", "Ready for Payment", "In Payment Run"],
  scheduled: ["Scheduled for Payment", "PAYMENT SCHEDULED", "Payment in process"],
  paid: ["Paid", "PAID IN FULL", "Settled", "Closed", "Reconciled", "marked paid"],
  onHold: ["On Hold", "ON_HOLD", "Disputed", "In Dispute"],
  rejected: ["Rejected", "REJECTED - DUPLICATE", "Canceled", "Voided"],
  factored: ["Factored", "ASSIGNED", "Sold"],
  unusual: ["Awaiting Goods Receipt", "Parked", "Under Verification"]
} as const

type Stage = keyof typeof wording

/** A receivable's path: the stages it passes and the days after issue at which it enters each. */
const pathOf = (random: () => number): ReadonlyArray<readonly [Stage, number]> => {
  const roll = random()
  const day = (min: number, span: number) => min + Math.floor(random() * span)
  const approved = day(2, 10)
  const scheduled = approved + day(3, 10)
  const paid = scheduled + day(1, 15)
  if (roll < 0.65)
    return [
      ["submitted", 0],
      ["approved", approved],
      ["scheduled", scheduled],
      ["paid", paid]
    ]
  if (roll < 0.78)
    return [
      ["submitted", 0],
      ["onHold", approved],
      ["approved", approved + day(5, 20)],
      ["paid", paid + 25]
    ]
  if (roll < 0.86)
    return [
      ["submitted", 0],
      ["rejected", approved]
    ]
  if (roll < 0.95)
    return [
      ["submitted", 0],
      ["approved", approved],
      ["factored", approved + day(1, 5)]
    ]
  return [
    ["submitted", 0],
    ["unusual", day(1, 5)],
    ["approved", approved + 10]
  ]
}

const dayMillis = 86_400_000

/** The document of receivable `index` as the portal shows it at `now`, or none before it is issued. */
export const documentAt = (config: SimulatorConfig, index: number, nowMillis: number): FetchedDocument | undefined => {
  const issuedAt = Date.parse(config.startedAt) + Math.floor((index * dayMillis) / config.perDay)
  if (issuedAt > nowMillis) return undefined
  const random = prng(config.seed * 1_000_003 + index)
  const path = pathOf(random)
  const ageDays = (nowMillis - issuedAt) / dayMillis
  const stage = path.filter(([, from]) => from <= ageDays).at(-1)![0]
  const spelling = random()
  const portalStatus = wording[stage][Math.floor(spelling * wording[stage].length)]!
  const terms = pick(random, [30, 60] as const)
  const baseAmount = 5_000 + Math.floor(random() * 5_000_000)
  // Some invoices are corrected on approval (a credit note for part of them).
  const corrected = random() < 0.1 && stage !== "submitted" && stage !== "unusual"
  const currency = pick(prng(config.seed), ["EUR", "USD", "GBP", "SEK"] as const)
  const reference = `${config.seed.toString(36).toUpperCase()}-${index.toString().padStart(6, "0")}`
  return {
    documentKey: `SIM-${reference}`,
    vendorReceivableId: `INV-${reference}`,
    amountCents: corrected ? Math.round(baseAmount * 0.95) : baseAmount,
    currency,
    receivableDate: isoDay(issuedAt),
    dueDate: random() < 0.9 ? isoDay(issuedAt + terms * dayMillis) : null,
    portalStatus,
    poNumber: random() < 0.8 ? `PO-${Math.floor(random() * 900_000 + 100_000)}` : null,
    metadata: {
      payment_terms: `NET${terms}`,
      supplier_code: `SUP-${(config.seed % 9973).toString().padStart(4, "0")}`,
      buyer_contact: `ap-${config.seed % 97}@buyer.example`,
      file_reference: `portal-export-${isoDay(issuedAt)}.csv`,
      ...(stage === "paid" ? { payment_reference: `PAY-${reference}` } : {})
    }
  }
}

const invalidConfig = (message: string) => permanentFailure(`simulator configuration: ${message}`)

export const connector: PortalConnector = {
  kind: "simulator",
  configSchema: SimulatorConfig,
  // The simulator's own wording beyond the default table.
  statusMapping: makeStatusMapping({
    "In Payment Run": "APPROVED",
    "Awaiting Goods Receipt": "PENDING",
    "Under Verification": "PENDING"
  }),
  defaultInterval: Duration.hours(1),
  fetch: (pair: PairToFetch) =>
    Stream.unwrap(
      Effect.gen(function* () {
        const decoded = decodeConfig(pair.config)
        if (decoded._tag === "Failure") return yield* invalidConfig(String(decoded.cause))
        const config = decoded.value
        const now = DateTime.toEpochMillis(pair.now)
        if (config.receivables === 0) return Stream.empty
        return Stream.range(0, config.receivables - 1).pipe(
          Stream.map((index) => documentAt(config, index, now)),
          Stream.filter((document): document is FetchedDocument => document !== undefined)
        )
      })
    )
}
