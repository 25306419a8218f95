/**
 * The connection slots' bookkeeping, against a plain model of the rules on random schedules of
 * connections opening, requests starting and ending, peers closing and time passing: the caps
 * always hold, a connection whose request is being answered never gives up its slot, a new
 * connection is closed only when no other could give way, and the one that gives way is the one
 * the rules name (over real sockets: `test/e2e/connection-pressure.test.ts`).
 */
import { assert, describe, it } from "@effect/vitest"
import fc from "fast-check"
import { makeSlots, type SlotLimits } from "../../../adapters/http/ConnectionBudget.ts"

interface Modelled {
  readonly id: number
  readonly key: string | undefined
  readonly openedAt: number
  busy: number
  used: boolean
  /** When it last became idle, and in what order, for ties. */
  idleSince: number
}

type Step =
  | { readonly _tag: "open"; readonly address: number }
  | { readonly _tag: "start"; readonly pick: number }
  | { readonly _tag: "end"; readonly pick: number }
  | { readonly _tag: "close"; readonly pick: number }
  | { readonly _tag: "tick"; readonly millis: number }

const step: fc.Arbitrary<Step> = fc.oneof(
  { arbitrary: fc.record({ _tag: fc.constant("open" as const), address: fc.integer({ min: 0, max: 3 }) }), weight: 4 },
  { arbitrary: fc.record({ _tag: fc.constant("start" as const), pick: fc.nat() }), weight: 2 },
  { arbitrary: fc.record({ _tag: fc.constant("end" as const), pick: fc.nat() }), weight: 2 },
  { arbitrary: fc.record({ _tag: fc.constant("close" as const), pick: fc.nat() }), weight: 1 },
  { arbitrary: fc.record({ _tag: fc.constant("tick" as const), millis: fc.integer({ min: 0, max: 40 }) }), weight: 1 }
)

const limitsArbitrary: fc.Arbitrary<SlotLimits> = fc.record({
  total: fc.integer({ min: 1, max: 8 }),
  perAddress: fc.integer({ min: 1, max: 5 }),
  staleAfterMillis: fc.integer({ min: 1, max: 60 })
})

// Address 3 stands for a trusted proxy: counted in the total only.
const keyOf = (address: number) => (address === 3 ? undefined : `10.0.0.${address}`)

/** The connections the rules allow to give way to a new one from `key`; undefined where none is needed. */
const allowedVictims = (
  open: ReadonlyArray<Modelled>,
  key: string | undefined,
  limits: SlotLimits,
  now: number
): ReadonlyArray<Modelled> | undefined => {
  const own = open.filter((c) => key !== undefined && c.key === key)
  if (key !== undefined && own.length >= limits.perAddress) {
    const free = own.filter((c) => c.busy === 0)
    const neverUsed = free.find((c) => !c.used)
    return neverUsed !== undefined ? [neverUsed] : free.slice(0, 1)
  }
  if (open.length < limits.total) return undefined
  const fresh = open.filter((c) => c.busy === 0 && !c.used)
  const idle = open.filter((c) => c.busy === 0 && c.used).sort((a, b) => a.idleSince - b.idleSince)
  if (fresh[0] !== undefined && now - fresh[0].openedAt >= limits.staleAfterMillis) return [fresh[0]]
  if (idle[0] !== undefined) return [idle[0]]
  const counts = new Map<string | undefined, number>()
  for (const c of fresh) counts.set(c.key, (counts.get(c.key) ?? 0) + 1)
  const most = Math.max(0, ...counts.values())
  // Of the addresses holding the most, each one's oldest.
  return [...counts.keys()].filter((k) => counts.get(k) === most).map((k) => fresh.find((c) => c.key === k)!)
}

const run = (limits: SlotLimits, steps: ReadonlyArray<Step>) => {
  let now = 0
  let order = 0
  let nextId = 0
  const slots = makeSlots<number>(limits, () => now)
  let open: Array<Modelled> = []
  const pickFrom = <A>(values: ReadonlyArray<A>, pick: number) =>
    values.length === 0 ? undefined : values[pick % values.length]
  for (const s of steps) {
    switch (s._tag) {
      case "tick":
        now += s.millis
        break
      case "open": {
        const key = keyOf(s.address)
        const id = nextId++
        const allowed = allowedVictims(open, key, limits, now)
        const closed = slots.opened(id, key)
        if (allowed === undefined) assert.deepStrictEqual(closed, [])
        else if (allowed.length === 0) assert.deepStrictEqual(closed, [id], "refused only when none may give way")
        else {
          assert.strictEqual(closed.length, 1)
          const victim = open.find((c) => c.id === closed[0])
          assert.isDefined(victim, "the one giving way was open")
          assert.strictEqual(victim!.busy, 0, "a connection being answered never gives way")
          assert.include(
            allowed.map((c) => c.id),
            victim!.id
          )
          open = open.filter((c) => c !== victim)
        }
        if (!closed.includes(id)) open.push({ id, key, openedAt: now, busy: 0, used: false, idleSince: 0 })
        break
      }
      case "start": {
        const c = pickFrom(open, s.pick)
        if (c === undefined) break
        c.busy++
        c.used = true
        slots.requestStarted(c.id)
        break
      }
      case "end": {
        const c = pickFrom(
          open.filter((c) => c.busy > 0),
          s.pick
        )
        if (c === undefined) break
        c.busy--
        if (c.busy === 0) c.idleSince = order++
        slots.requestEnded(c.id)
        break
      }
      case "close": {
        const c = pickFrom(open, s.pick)
        if (c === undefined) break
        open = open.filter((o) => o !== c)
        slots.closed(c.id)
        break
      }
    }
    assert.strictEqual(slots.open(), open.length)
    assert.isAtMost(open.length, limits.total)
    for (const key of new Set(open.map((c) => c.key)))
      if (key !== undefined) assert.isAtMost(open.filter((c) => c.key === key).length, limits.perAddress)
  }
}

describe("connection slots", () => {
  it("follow the rules on any schedule", () =>
    fc.assert(
      fc.property(limitsArbitrary, fc.array(step, { maxLength: 120 }), (limits, steps) => run(limits, steps)),
      { numRuns: 500 }
    ))

  it("at the cap: a stale half-sent connection first, then the longest idle, then the fullest address's oldest", () => {
    let now = 0
    const slots = makeSlots<string>({ total: 4, perAddress: 10, staleAfterMillis: 1_000 }, () => now)
    slots.opened("idle-1", "a")
    slots.requestStarted("idle-1")
    slots.opened("idle-2", "a")
    slots.requestStarted("idle-2")
    slots.requestEnded("idle-2")
    slots.requestEnded("idle-1")
    slots.opened("lone", "b")
    slots.opened("flood-1", "c")
    assert.deepStrictEqual(slots.opened("flood-2", "c"), ["idle-2"])
    assert.deepStrictEqual(slots.opened("flood-3", "c"), ["idle-1"])
    // No idle one left: the address with the most half-sent connections gives way, not the lone one.
    assert.deepStrictEqual(slots.opened("flood-4", "c"), ["flood-1"])
    now = 1_000
    // Past the short timeout, the oldest half-sent connection goes first, whatever its address.
    assert.deepStrictEqual(slots.opened("new", "d"), ["lone"])
  })

  it("a connection being answered keeps its slot: with every one busy, the new one is closed", () => {
    const slots = makeSlots<string>({ total: 2, perAddress: 10, staleAfterMillis: 0 }, () => 0)
    for (const id of ["a", "b"]) {
      slots.opened(id, id)
      slots.requestStarted(id)
    }
    assert.deepStrictEqual(slots.opened("c", "c"), ["c"])
    slots.requestEnded("b")
    assert.deepStrictEqual(slots.opened("d", "d"), ["b"])
  })
})
