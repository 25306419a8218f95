/**
 * Places for some work, at most `capacity` at once, handed to waiters through a fair queue
 * (`domain/FairQueue.ts`): a place that frees goes straight to the next waiter, so that no arrival
 * can take it first. What a place guards (a password hash, a piece of a heavy answer) and how long
 * a waiter may wait are the caller's. Synchronous, for use inside `Effect.sync` or `suspend`: one
 * fiber runs at a time, so no step interleaves with another. Depends on `effect` and the core.
 */
import { Deferred, Effect } from "effect"
import * as FairQueue from "../domain/FairQueue.ts"

export interface Waiter {
  readonly turn: Deferred.Deferred<void>
  /** Set when a place was given: a waiter that stops waiting must then pass it on. */
  given: boolean
}

export const make = (capacity: number) => {
  let running = 0
  let queue = FairQueue.empty<Waiter>()

  const release = () => {
    const taken = FairQueue.take(queue)
    if (taken === undefined) {
      running--
      return
    }
    queue = taken.queue
    taken.next.item.given = true
    Deferred.doneUnsafe(taken.next.item.turn, Effect.void)
  }

  return {
    /** Takes a free place now, if there is one. */
    takeFree: (): boolean => {
      if (running >= capacity) return false
      running++
      return true
    },
    /** Queues a waiter for `ticket`, whose `turn` completes with its place; none when the queue is full. */
    wait: (ticket: FairQueue.Ticket, bounds: FairQueue.Bounds): Waiter | undefined => {
      const waiter: Waiter = { turn: Deferred.makeUnsafe<void>(), given: false }
      const offered = FairQueue.offer(queue, ticket, waiter, bounds)
      if (offered === undefined) return undefined
      queue = offered
      return waiter
    },
    release,
    /** A waiter that stops waiting: a place given to it in the same instant passes on. */
    giveUp: (waiter: Waiter) => {
      if (waiter.given) release()
      else queue = FairQueue.withdraw(queue, waiter)
    }
  }
}
