/**
 * The heavy answers' turns: one piece at a time in the process, handed round robin by
 * organization, so that an organization with one page in flight is not held behind all of
 * another's three; a turn is held until the loop has polled for I/O after its piece; an answer
 * that ends while it waits gives its place up.
 */
import { assert, describe, it } from "@effect/vitest"
import { Effect, Exit, Fiber } from "effect"
import * as HeavyTurns from "../../../../adapters/http/transport/HeavyTurns.ts"
import type { OrgId } from "../../../../core/shared/domain/Ids.ts"

const orgA = "org_a" as OrgId
const orgB = "org_b" as OrgId

describe("HeavyTurns", () => {
  it.effect(
    "three pages of one organization and one of another: the other's pieces are not held behind all three",
    () =>
      Effect.gen(function* () {
        const turns = yield* HeavyTurns.make
        const made: Array<string> = []
        const page = (org: OrgId, name: string, pieces: number) =>
          Effect.forEach(
            Array.from({ length: pieces }, (_, i) => i),
            (i) => turns.of(org)(() => made.push(`${name}${i}`)),
            {
              discard: true
            }
          )
        yield* Effect.all([page(orgA, "a", 6), page(orgA, "b", 6), page(orgA, "c", 6), page(orgB, "B", 6)], {
          concurrency: "unbounded"
        })
        assert.strictEqual(made.length, 24)
        // B asks for its next piece once its turn has ended and gone to A: it waits behind that one
        // and at most one more of A's (one turn per other organization with work), however many
        // pages A has. First come first served would give A's three pages three turns to B's one.
        const bTurns = made.flatMap((piece, at) => (piece.startsWith("B") ? [at] : []))
        assert.isAtMost(bTurns[0]!, 2, made.join(" "))
        for (let i = 1; i < bTurns.length; i++) assert.isAtMost(bTurns[i]! - bTurns[i - 1]!, 3, made.join(" "))
        assert.isBelow(bTurns[bTurns.length - 1]!, 19, made.join(" "))
      })
  )

  it.effect(
    "a turn is held until the loop has polled for I/O: an immediate set meanwhile runs before the next piece",
    () =>
      Effect.gen(function* () {
        const turns = yield* HeavyTurns.make
        const events: Array<string> = []
        const piece = (name: string) =>
          turns.of(orgA)(() => {
            events.push(name)
            // What an incoming request's callback stands for: queued behind the piece on the loop.
            setImmediate(() => events.push(`io after ${name}`))
          })
        yield* Effect.all([piece("first"), piece("second")], { concurrency: "unbounded" })
        assert.deepStrictEqual(events.slice(0, 3), ["first", "io after first", "second"])
      })
  )

  it.effect("an answer that ends while it waits leaves the line; the others still get their turns", () =>
    Effect.gen(function* () {
      const turns = yield* HeavyTurns.make
      // Started while the first piece holds the turn, so both wait in line (fibers run at once).
      const started = yield* turns.of(orgA)(() => {
        const waiting = Effect.runFork(turns.of(orgA)(() => "never"))
        const other = Effect.runFork(turns.of(orgB)(() => "B"))
        Effect.runFork(Fiber.interrupt(waiting))
        return { waiting, other }
      })
      const ended = yield* Fiber.await(started.waiting)
      assert.isTrue(Exit.hasInterrupts(ended))
      assert.strictEqual(yield* Fiber.join(started.other), "B")
      // The turn was given back: the line is empty and the next piece runs at once.
      assert.strictEqual(yield* turns.of(orgA)(() => "again"), "again")
    })
  )
})
