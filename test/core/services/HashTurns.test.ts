/**
 * The places for hashes at sign-in, with the test clock: a waiter gets a place as soon as one
 * frees, gives up after `longestWait` without taking anything, and one that goes away while
 * waiting leaves its turn to the next; a place is held until its hash ends, even when the sign-in
 * is interrupted.
 */
import { assert, describe, it } from "@effect/vitest"
import { Deferred, Effect, Fiber } from "effect"
import { TestClock } from "effect/testing"
import type { Ticket } from "../../../core/accounts/domain/FairQueue.ts"
import * as HashTurns from "../../../core/accounts/services/HashTurns.ts"

const from = (address: string, first = false): Ticket => ({ address, account: undefined, first })

/** A hash that ends when the test says so. */
const held = Effect.map(Deferred.make<void>(), (done) => ({ done, work: Deferred.await(done) }))

describe("HashTurns", () => {
  it.effect("a waiter gives up after the longest wait, refused as busy, and a freed place goes to the next", () =>
    Effect.gen(function* () {
      const turns = yield* HashTurns.make(1)
      const running = yield* held
      const holder = yield* Effect.forkChild(turns.withTurn(from("a"), running.work))
      yield* Effect.yieldNow
      const late = yield* Effect.forkChild(Effect.flip(turns.withTurn(from("b"), Effect.succeed("b"))))
      yield* Effect.yieldNow
      yield* TestClock.adjust(HashTurns.longestWait)
      assert.strictEqual((yield* Fiber.join(late))._tag, "HashingBusy")

      const next = yield* Effect.forkChild(turns.withTurn(from("c"), Effect.succeed("c")))
      yield* Effect.yieldNow
      yield* Deferred.succeed(running.done, undefined)
      yield* Fiber.join(holder)
      assert.strictEqual(yield* Fiber.join(next), "c")
      // Nothing is left holding a place: the next one runs at once.
      assert.strictEqual(yield* turns.withTurn(from("d"), Effect.succeed("d")), "d")
    })
  )

  it.effect("a waiter that goes away leaves its turn; an interrupted hash keeps its place until it ends", () =>
    Effect.gen(function* () {
      const turns = yield* HashTurns.make(1)
      const running = yield* held
      const holder = yield* Effect.forkChild(turns.withTurn(from("a"), Effect.uninterruptible(running.work)))
      yield* Effect.yieldNow
      const gone = yield* Effect.forkChild(turns.withTurn(from("b"), Effect.succeed("b")))
      const owner = yield* Effect.forkChild(turns.withTurn(from("c", true), Effect.succeed("c")))
      yield* Effect.yieldNow
      yield* Fiber.interrupt(gone)
      // The hash cannot be stopped: interrupting its sign-in waits for it and frees nothing early.
      const stopping = yield* Effect.forkChild(Fiber.interrupt(holder))
      yield* Effect.yieldNow
      assert.isUndefined(owner.pollUnsafe())
      yield* Deferred.succeed(running.done, undefined)
      yield* Fiber.join(stopping)
      assert.strictEqual(yield* Fiber.join(owner), "c")
      assert.strictEqual(yield* turns.withTurn(from("d"), Effect.succeed("d")), "d")
    })
  )
})
