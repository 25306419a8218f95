/**
 * The queue for password hashes: whatever arrives, is served and gives up, in any order, no address
 * is served twice while another that waited all along has not been served once, the first class is
 * always served before anyone else, and nothing grows past its bounds. Keyed by organization (the
 * heavy answers' turns), an organization with work waiting waits at most one turn per other
 * organization with work.
 */
import { assert, describe, it } from "@effect/vitest"
import fc from "fast-check"
import * as FairQueue from "../../../core/accounts/domain/FairQueue.ts"

const bounds: FairQueue.Bounds = { perAddress: 2, perAccount: 3, addresses: 4, first: 3 }

type Step =
  | { readonly _tag: "offer"; readonly address: string; readonly account: string | undefined; readonly first: boolean }
  | { readonly _tag: "take" }
  | { readonly _tag: "withdraw"; readonly pick: number }

// More arrivals than turns, so that lines form and the bounds are reached.
const step: fc.Arbitrary<Step> = fc.oneof(
  {
    weight: 4,
    arbitrary: fc.record({
      _tag: fc.constant("offer" as const),
      address: fc.constantFrom("a", "b", "c", "d", "e", "f"),
      account: fc.option(fc.constantFrom("x", "y", "z"), { nil: undefined }),
      first: fc.constantFrom(false, false, false, true)
    })
  },
  { weight: 3, arbitrary: fc.constant({ _tag: "take" as const }) },
  { weight: 1, arbitrary: fc.record({ _tag: fc.constant("withdraw" as const), pick: fc.nat(20) }) }
)

interface Item {
  readonly id: number
  readonly ticket: FairQueue.Ticket
}

describe("FairQueue", () => {
  it("is fair by address, serves the first class first, loses nothing and stays within its bounds", () =>
    fc.assert(
      fc.property(fc.array(step, { maxLength: 200 }), (steps) => {
        let queue = FairQueue.empty<Item>()
        let waiting: Array<Item> = []
        // Per address (outside the first class): when it last became non-empty and was last served.
        const since = new Map<string, number>()
        const served = new Map<string, number>()
        steps.forEach((s, time) => {
          if (s._tag === "offer") {
            const item = { id: time, ticket: { address: s.address, account: s.account, first: s.first } }
            const wasEmpty = !waiting.some((w) => !w.ticket.first && w.ticket.address === s.address)
            const next = FairQueue.offer(queue, item.ticket, item, bounds)
            if (next === undefined) return
            queue = next
            waiting.push(item)
            if (!s.first && wasEmpty) since.set(s.address, time)
          } else if (s._tag === "take") {
            const taken = FairQueue.take(queue)
            if (taken === undefined) {
              assert.strictEqual(waiting.length, 0)
              return
            }
            queue = taken.queue
            const item = taken.next.item
            assert.isTrue(waiting.includes(item), "served once, and only what waits")
            waiting = waiting.filter((w) => w !== item)
            if (item.ticket.first) return
            assert.isFalse(
              waiting.some((w) => w.ticket.first),
              "no one outside the first class while it waits"
            )
            const address = item.ticket.address
            const previous = served.get(address)
            if (previous !== undefined) {
              for (const other of new Set(waiting.filter((w) => !w.ticket.first).map((w) => w.ticket.address))) {
                if (other === address || (since.get(other) ?? time) > previous) continue
                assert.isAbove(served.get(other) ?? -1, previous, `${other} waited since before ${address}'s last turn`)
              }
            }
            served.set(address, time)
            if (waiting.some((w) => !w.ticket.first && w.ticket.address === address)) since.set(address, time)
          } else {
            const item = waiting[s.pick % Math.max(1, waiting.length)]
            if (item === undefined) return
            queue = FairQueue.withdraw(queue, item)
            waiting = waiting.filter((w) => w !== item)
            const address = item.ticket.address
            if (!waiting.some((w) => !w.ticket.first && w.ticket.address === address)) since.delete(address)
          }
          assert.strictEqual(FairQueue.size(queue), waiting.length)
          assert.isAtMost(queue.first.length, bounds.first)
          assert.isAtMost(queue.rotation.length, bounds.addresses)
          assert.strictEqual(queue.byAddress.size, queue.rotation.length)
          for (const line of queue.byAddress.values()) assert.isAtMost(line.length, bounds.perAddress)
          for (const account of ["x", "y", "z"]) {
            const count = waiting.filter((w) => w.ticket.account === account).length
            assert.isAtMost(count, bounds.perAccount)
            assert.strictEqual(queue.byAccount.get(account) ?? 0, count)
          }
        })
      }),
      {
        // Two of one address and one of another: the other's turn comes between the two.
        examples: [
          [
            [
              { _tag: "offer", address: "a", account: undefined, first: false },
              { _tag: "offer", address: "a", account: undefined, first: false },
              { _tag: "offer", address: "b", account: undefined, first: false },
              { _tag: "take" },
              { _tag: "take" }
            ]
          ]
        ]
      }
    ))

  // As the heavy answers' turns use it (`adapters/http/transport/HeavyTurns.ts`), keyed by organization.
  it("an owner with work waiting waits at most as many turns as there are other owners with work", () =>
    fc.assert(
      fc.property(
        fc.array(
          fc.oneof(
            { weight: 3, arbitrary: fc.record({ _tag: fc.constant("offer" as const), owner: fc.nat(5) }) },
            { weight: 3, arbitrary: fc.constant({ _tag: "take" as const }) },
            { weight: 1, arbitrary: fc.record({ _tag: fc.constant("withdraw" as const), pick: fc.nat(30) }) }
          ),
          { maxLength: 300 }
        ),
        (steps) => {
          const roomy: FairQueue.Bounds = { perAddress: 1_000, perAccount: 1_000, addresses: 1_000, first: 0 }
          let queue = FairQueue.empty<number>()
          const waiting: Array<{ readonly owner: string; readonly id: number }> = []
          // Per owner with work: the other owners with work when its wait began, and turns they had since.
          const wait = new Map<string, { readonly others: number; served: number }>()
          const owners = () => new Set(waiting.map((w) => w.owner))
          const begin = (owner: string) => wait.set(owner, { others: owners().size - 1, served: 0 })
          steps.forEach((s, id) => {
            if (s._tag === "offer") {
              const owner = `org${s.owner}`
              const began = !owners().has(owner)
              queue = FairQueue.offer(queue, { address: owner, account: undefined, first: false }, id, roomy)!
              waiting.push({ owner, id })
              if (began) begin(owner)
            } else if (s._tag === "take") {
              const taken = FairQueue.take(queue)
              if (taken === undefined) {
                assert.strictEqual(waiting.length, 0)
                return
              }
              queue = taken.queue
              const at = waiting.findIndex((w) => w.id === taken.next.item)
              const [served] = waiting.splice(at, 1)
              for (const [owner, since] of wait) {
                if (owner === served!.owner) continue
                since.served++
                assert.isAtMost(since.served, since.others, `${owner} waited past its turn`)
              }
              if (owners().has(served!.owner)) begin(served!.owner)
              else wait.delete(served!.owner)
            } else {
              const [gone] = waiting.splice(s.pick % Math.max(1, waiting.length), 1)
              if (gone === undefined) return
              queue = FairQueue.withdraw(queue, gone.id)
              if (!owners().has(gone.owner)) wait.delete(gone.owner)
            }
          })
        }
      ),
      { numRuns: 300 }
    ))

  it("refuses an arrival past a bound, and takes one again once room is made", () => {
    const ticket = (address: string, account?: string): FairQueue.Ticket => ({ address, account, first: false })
    let queue = FairQueue.empty<string>()
    for (const id of ["1", "2"]) queue = FairQueue.offer(queue, ticket("a"), id, bounds) ?? assert.fail(id)
    assert.isUndefined(FairQueue.offer(queue, ticket("a"), "3", bounds))
    queue = FairQueue.withdraw(queue, "1")
    assert.isDefined(FairQueue.offer(queue, ticket("a"), "3", bounds))
  })
})
