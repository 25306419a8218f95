import { assert, describe, it } from "@effect/vitest"
import { DateTime, Schema } from "effect"
import fc from "fast-check"
import { Event, toWire } from "../../../core/receivables/domain/Events.ts"
import { historyEntry, revertChanges } from "../../../core/receivables/domain/History.ts"
import {
  type FetchedDocument,
  isStorableText,
  type PairReceivable,
  type PairSyncPlan,
  type PlanContext,
  planPairSync,
  validateDocument
} from "../../../core/receivables/domain/PairSync.ts"
import type { HistoryEntry, ReceivableState } from "../../../core/receivables/domain/Resources.ts"
import { canonicalStatusText, type StatusMapping, statuses } from "../../../core/receivables/domain/Status.ts"
import type { DebtorId, ReceivableId, VendorId } from "../../../core/shared/domain/Ids.ts"
import { textLimits } from "../../../core/shared/domain/TextLimits.ts"
import { arbitraryCurrency, arbitraryIsoDate, arbitraryMetadata } from "../../support/arbitraries.ts"

const refs = {
  vendor: { id: "7f0b1c3e-2d4a-4e6f-8a9b-0c1d2e3f4a5b" as VendorId, name: "Acme" },
  debtor: { id: "1a2b3c4d-5e6f-4a8b-9c0d-1e2f3a4b5c6d" as DebtorId, name: "Globex" }
}

const decodeEvent = Schema.decodeUnknownSync(Event)

const contextAt = (step: number): PlanContext => {
  let n = 0
  return {
    refs,
    now: DateTime.makeUnsafe(Date.UTC(2026, 0, 1) + step * 3_600_000),
    newReceivableId: () => `rcv_${(step * 10_000 + n++).toString(16).padStart(32, "0")}` as ReceivableId
  }
}

const document = (key: string): fc.Arbitrary<FetchedDocument> =>
  fc.record({
    documentKey: fc.constant(key),
    vendorReceivableId: fc.option(fc.constantFrom("INV-1", "INV-2"), { nil: null }),
    amountCents: fc.integer({ min: 0, max: 10_000_00 }),
    currency: arbitraryCurrency,
    receivableDate: arbitraryIsoDate,
    dueDate: fc.option(arbitraryIsoDate, { nil: null }),
    portalStatus: fc.constantFrom("Submitted", "Approved", "Paid", "Rejected", "Factored", "Odd"),
    poNumber: fc.option(fc.constantFrom("PO-1", "PO-2"), { nil: null }),
    metadata: arbitraryMetadata
  })

/** A snapshot: some of the keys k0..k5, each with a document, sometimes malformed. */
const snapshot = fc
  .subarray(["k0", "k1", "k2", "k3", "k4", "k5"])
  .chain((keys) => fc.tuple(...keys.map((key) => fc.tuple(document(key), fc.integer({ min: 0, max: 9 })))))
  .map((docs) => docs.map(([doc, roll]) => (roll === 0 ? { ...doc, currency: "eur" } : doc)))

/** What a store does with a plan, in memory. */
const apply = (current: ReadonlyArray<PairReceivable>, plan: PairSyncPlan) => {
  const byId = new Map(current.map((r) => [r.id, r]))
  for (const update of plan.updates)
    byId.set(update.id, {
      id: update.id,
      documentKey: update.documentKey,
      state: update.state,
      detectedAt: update.detectedAt
    })
  for (const insert of plan.inserts) byId.set(insert.id, insert)
  return [...byId.values()]
}

const stateOf = (doc: FetchedDocument): Omit<ReceivableState, "status"> => ({
  vendorReceivableId: doc.vendorReceivableId,
  amountCents: doc.amountCents,
  currency: doc.currency as ReceivableState["currency"],
  receivableDate: doc.receivableDate as ReceivableState["receivableDate"],
  dueDate: doc.dueDate as ReceivableState["dueDate"],
  portalStatus: doc.portalStatus,
  poNumber: doc.poNumber,
  metadata: doc.metadata
})

describe("planPairSync", () => {
  it("after any sequence of snapshots the pair holds each document's last valid state, and history replays back to every earlier one", () =>
    fc.assert(
      fc.property(fc.array(snapshot, { minLength: 1, maxLength: 6 }), (snapshots) => {
        let pair: ReadonlyArray<PairReceivable> = []
        const lastValid = new Map<string, FetchedDocument>()
        const statesSeen = new Map<string, Array<ReceivableState>>()
        const history = new Map<string, Array<HistoryEntry>>()
        // The receivable as the events last showed it: a feed reader's copy.
        const replayed = new Map<string, Record<string, unknown>>()
        snapshots.forEach((docs, step) => {
          const plan = planPairSync(pair, docs, contextAt(step))
          pair = apply(pair, plan)
          plan.events.forEach((event, index) => {
            const wire = toWire({ batch: 1n, ordinal: index + 1, sequence: index + 1, ...event })
            assert.deepStrictEqual(decodeEvent(wire), wire)
            const data = event.data as { readonly receivable?: Record<string, unknown> }
            if (data.receivable !== undefined) replayed.set(event.receivableId, data.receivable)
          })
          for (const doc of docs) if (doc.currency !== "eur") lastValid.set(doc.documentKey, doc)
          assert.deepStrictEqual(
            plan.quarantined.map((q) => q.documentKey).sort(),
            docs
              .filter((d) => d.currency === "eur")
              .map((d) => d.documentKey)
              .sort()
          )
          assert.strictEqual(
            plan.inserts.length + plan.updates.length + plan.unchanged + plan.quarantined.length,
            docs.length
          )
          for (const update of plan.updates) history.set(update.id, [...(history.get(update.id) ?? []), update.history])
          for (const r of pair) {
            const seen = statesSeen.get(r.id) ?? []
            if (seen.length === 0 || JSON.stringify(seen.at(-1)) !== JSON.stringify(r.state)) seen.push(r.state)
            statesSeen.set(r.id, seen)
          }
        })
        // The events replay to the stored pair.
        for (const r of pair) {
          const copy = replayed.get(r.id)!
          assert.deepStrictEqual(
            [copy.status, copy.amount_cents, copy.metadata],
            [r.state.status, r.state.amountCents, r.state.metadata]
          )
        }
        // The stored pair equals the last valid snapshot of every document (vanished ones kept).
        assert.strictEqual(pair.length, lastValid.size)
        for (const r of pair) {
          const { status: _status, ...state } = r.state
          assert.deepStrictEqual(state, stateOf(lastValid.get(r.documentKey)!))
        }
        // Reverting the history, newest first, walks back through every earlier state.
        for (const r of pair) {
          const entries = history.get(r.id) ?? []
          const walked = [r.state]
          for (const entry of [...entries].reverse()) walked.unshift(revertChanges(walked[0]!, entry.changes))
          assert.deepStrictEqual(walked, statesSeen.get(r.id))
        }
      }),
      { numRuns: 500 }
    ))

  it("plans a document the pair already has as validating it and comparing says, whether it restates the stored receivable or not", () => {
    // What a portal may send back for a stored receivable: the same document, a copy of it, one
    // field moved, malformed values (some equal to the stored ones in all but type), or the same
    // text under a status mapping that now says something else.
    const resent = (doc: FetchedDocument): fc.Arbitrary<{ doc: FetchedDocument; mapping?: StatusMapping }> =>
      fc.oneof(
        fc.constant({ doc }),
        fc.constant({ doc: { ...doc, metadata: { ...doc.metadata } } }),
        document(doc.documentKey).map((other) => ({ doc: other })),
        fc
          .constantFrom<Partial<Record<keyof FetchedDocument, unknown>>>(
            { amountCents: doc.amountCents + 1 },
            { amountCents: String(doc.amountCents) },
            { currency: doc.currency.toLowerCase() },
            { dueDate: doc.dueDate === null ? "2026-02-30" : null },
            { portalStatus: `${doc.portalStatus} ` },
            { metadata: null },
            { metadata: Object.assign([], doc.metadata) },
            { metadata: { ...doc.metadata, x: 1 } },
            { metadata: { ...doc.metadata, added: "v" } }
          )
          .map((change) => ({ doc: { ...doc, ...change } as FetchedDocument })),
        fc.constantFrom(...statuses).map((status) => ({
          doc,
          mapping: new Map([[canonicalStatusText(doc.portalStatus), status]])
        }))
      )
    fc.assert(
      fc.property(
        document("k").chain((doc) => fc.tuple(fc.constant(doc), resent(doc))),
        ([stored, { doc, mapping }]) => {
          const pair = apply([], planPairSync([], [stored], contextAt(0)))
          const plan = planPairSync(pair, [doc], { ...contextAt(1), statusMapping: mapping })
          const validated = validateDocument(doc, mapping)
          const expected =
            validated._tag === "Invalid"
              ? "quarantined"
              : historyEntry(pair[0]!.state, validated.state, contextAt(1).now)._tag === "None"
                ? "unchanged"
                : "updated"
          const planned = plan.quarantined.length === 1 ? "quarantined" : plan.unchanged === 1 ? "unchanged" : "updated"
          assert.strictEqual(planned, expected)
          if (planned === "updated" && validated._tag === "Valid") {
            assert.deepStrictEqual(plan.updates[0]!.state, validated.state)
          }
        }
      ),
      { numRuns: 5_000 }
    )
  })

  it("emits created for new receivables, updated for changed ones, and status_changed with the spec's payload", () => {
    const base: FetchedDocument = {
      documentKey: "k",
      vendorReceivableId: "INV-9",
      amountCents: 1000,
      currency: "EUR",
      receivableDate: "2026-01-01",
      dueDate: null,
      portalStatus: "Submitted",
      poNumber: null,
      metadata: {}
    }
    const first = planPairSync([], [base], contextAt(0))
    assert.deepStrictEqual(
      first.events.map((e) => e.type),
      ["receivable.created"]
    )
    const pair = apply([], first)
    const paid = planPairSync(pair, [{ ...base, portalStatus: "Paid in full" }], contextAt(1))
    assert.deepStrictEqual(
      paid.events.map((e) => e.type),
      ["receivable.updated", "receivable.status_changed"]
    )
    assert.deepStrictEqual(paid.events[1]!.data, {
      receivable_id: pair[0]!.id,
      vendor: refs.vendor,
      debtor: refs.debtor,
      previous_status: "PENDING",
      new_status: "PAID",
      previous_portal_status: "Submitted",
      new_portal_status: "Paid in full",
      changed_at: "2026-01-01T01:00:00.000Z"
    })
    // The update carries the receivable as it became, detected when it was created, and its changes.
    const updated = paid.events[0]!.data as { receivable: Record<string, unknown>; changes: Record<string, unknown> }
    assert.strictEqual(updated.receivable.status, "PAID")
    assert.strictEqual(updated.receivable.detected_at, "2026-01-01T00:00:00.000Z")
    assert.strictEqual(updated.receivable.updated_at, "2026-01-01T01:00:00.000Z")
    assert.deepStrictEqual(updated.changes.status, { from: "PENDING", to: "PAID" })
    assert.deepStrictEqual(
      (first.events[0]!.data as { receivable: Record<string, unknown> }).receivable.status,
      "PENDING"
    )
    const same = planPairSync(apply(pair, paid), [{ ...base, portalStatus: "Paid in full" }], contextAt(2))
    assert.deepStrictEqual(same.events, [])
    assert.strictEqual(same.unchanged, 1)
  })

  it("quarantines a document with reasons, and a document key returned twice", () => {
    const doc: FetchedDocument = {
      documentKey: "k",
      vendorReceivableId: null,
      amountCents: 12.5,
      currency: "euro",
      receivableDate: "2026-02-30",
      dueDate: null,
      portalStatus: "Open",
      poNumber: null,
      metadata: {}
    }
    const plan = planPairSync(
      [],
      [doc, { ...doc, amountCents: 1, currency: "EUR", receivableDate: "2026-02-01" }],
      contextAt(0)
    )
    assert.strictEqual(plan.quarantined.length, 2)
    assert.deepStrictEqual(plan.inserts, [])
    const reasons = plan.quarantined[0]!.reasons.join("; ")
    // Each reason names the field and what the portal sent in it.
    assert.match(reasons, /amountCents: [^;]*, got 12\.5/)
    assert.match(reasons, /currency: [^;]*, got "euro"/)
    assert.match(reasons, /receivableDate: [^;]*, got "2026-02-30"/)
    assert.deepStrictEqual(plan.quarantined[1]!.reasons, ["the portal returned this document twice"])
  })

  it("planned a chunk at a time with a shared set of seen keys, a key repeated in a later chunk is quarantined", () => {
    const doc: FetchedDocument = {
      documentKey: "k",
      vendorReceivableId: null,
      amountCents: 100,
      currency: "EUR",
      receivableDate: "2026-01-01",
      dueDate: null,
      portalStatus: "Open",
      poNumber: null,
      metadata: {}
    }
    const seen = new Set<string>()
    const first = planPairSync([], [doc], { ...contextAt(0), seen })
    const second = planPairSync([], [{ ...doc, amountCents: 200 }], { ...contextAt(0), seen })
    assert.strictEqual(first.inserts.length, 1)
    assert.deepStrictEqual(second.inserts, [])
    assert.deepStrictEqual(second.quarantined, [
      { documentKey: "k", reasons: ["the portal returned this document twice"] }
    ])
  })

  // Where a character goes in a document: a text field, the document key, a metadata key or value.
  const places = ["vendorReceivableId", "portalStatus", "poNumber", "documentKey", "metadata key", "metadata value"]
  const put = (doc: FetchedDocument, place: string, insert: (text: string) => string): FetchedDocument => {
    if (place === "metadata key") return { ...doc, metadata: { ...doc.metadata, [insert("note")]: "x" } }
    if (place === "metadata value") return { ...doc, metadata: { ...doc.metadata, note: insert("x") } }
    const field = place as "vendorReceivableId" | "portalStatus" | "poNumber" | "documentKey"
    return { ...doc, [field]: insert(doc[field] ?? "text") }
  }
  const unstorableChar = fc.constantFrom("\u0000", "\ud800", "\udbff", "\udc00", "\udfff")
  const wholePair = fc.constantFrom("😀", "🧾", "\ud83d\ude00")

  it("a document holding the NUL character or half a surrogate pair anywhere is quarantined, naming where; whole pairs are kept", () =>
    fc.assert(
      fc.property(
        document("k"),
        fc.constantFrom(...places),
        unstorableChar,
        wholePair,
        fc.nat(),
        (doc, place, bad, emoji, at) => {
          const inserting = (char: string) => (text: string) =>
            text.slice(0, at % (text.length + 1)) + char + text.slice(at % (text.length + 1))
          const refused = planPairSync([], [put(doc, place, inserting(bad))], contextAt(0))
          assert.deepStrictEqual(refused.inserts, [])
          assert.strictEqual(refused.quarantined.length, 1)
          const [entry] = refused.quarantined
          const named = place === "metadata key" ? "metadata" : place === "metadata value" ? "metadata.note" : place
          assert.deepStrictEqual(
            entry!.reasons.map((reason) => reason.split(":")[0]),
            [named]
          )
          assert.isTrue(isStorableText(entry!.documentKey))
          assert.isTrue(entry!.reasons.every(isStorableText))
          const kept = planPairSync([], [put(doc, place, inserting(emoji))], contextAt(0))
          assert.strictEqual(kept.inserts.length, 1)
        }
      ),
      { numRuns: 2_000 }
    ))

  it("isStorableText: no NUL character and no half of a surrogate pair", () =>
    fc.assert(
      fc.property(
        fc.string({ unit: "binary" }),
        fc.string({ unit: fc.constantFrom("\u0000", "\ud800", "\udc00", "a", "😀") }),
        (a, b) => {
          for (const text of [a, b]) {
            const wellFormed = (text as string & { isWellFormed(): boolean }).isWellFormed()
            assert.strictEqual(isStorableText(text), wellFormed && !text.includes("\u0000"), JSON.stringify(text))
          }
        }
      ),
      { numRuns: 5_000 }
    ))
})

describe("text limits", () => {
  const limited = ["vendorReceivableId", "poNumber", "portalStatus", "currency", "receivableDate", "dueDate"] as const

  it("a document with any text over its limit is quarantined with one reason naming that field, and nothing is written", () =>
    fc.assert(
      fc.property(
        document("k0"),
        fc.constantFrom(...limited, "documentKey", "metadataKey", "metadataValue"),
        fc.integer({ min: 1, max: 5_000 }),
        (doc, field, extra) => {
          const limit = textLimits[field]
          const long = "x".repeat(limit + extra)
          const oversize: FetchedDocument =
            field === "metadataKey"
              ? { ...doc, metadata: { [long]: "v" } }
              : field === "metadataValue"
                ? { ...doc, metadata: { note: long } }
                : { ...doc, [field]: long }
          const plan = planPairSync([], [oversize], contextAt(0))
          assert.deepStrictEqual([plan.inserts.length, plan.updates.length, plan.events.length], [0, 0, 0])
          assert.strictEqual(plan.quarantined.length, 1)
          const [reason] = plan.quarantined[0]!.reasons
          assert.include(reason, `${limit + extra} characters, over the limit of ${limit}`)
          assert.isBelow(plan.quarantined[0]!.documentKey.length, textLimits.documentKey + 2)
        }
      )
    ))

  it("a document its connector could not read is quarantined with the connector's reasons and changes nothing", () =>
    fc.assert(
      fc.property(document("k0"), fc.array(fc.string({ minLength: 1 }), { minLength: 1, maxLength: 3 }), (doc, why) => {
        const current = planPairSync([], [doc], contextAt(0)).inserts
        const plan = planPairSync(
          current,
          [{ ...doc, amountCents: doc.amountCents + 1, unreadable: why }],
          contextAt(1)
        )
        assert.deepStrictEqual(plan.quarantined, [{ documentKey: "k0", reasons: why }])
        assert.deepStrictEqual([plan.updates.length, plan.events.length], [0, 0])
      })
    ))
})
