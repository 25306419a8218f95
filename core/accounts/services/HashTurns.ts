/**
 * The places for password hashes at sign-in: at most `PASSWORD_HASHES_IN_FLIGHT` at once, and when
 * all are taken a sign-in waits its turn in a fair queue (`domain/FairQueue.ts`: per address, round
 * robin, the owner from a known address first), for at most `longestWait`. A sign-in the queue has
 * no room for, or that waited too long, is refused at once (`HashingBusy`), before any hash. Before,
 * one past the cap was refused whoever sent it, so a flood from 250 addresses took nearly every
 * place and got 97.5% of everyone's sign-ins refused. Depends on `effect` and the core.
 */
import { Config, Deferred, Duration, Effect, Schema } from "effect"
import type * as FairQueue from "../domain/FairQueue.ts"
import { HashingBusy } from "../ports/PasswordHasher.ts"
import * as FairPlaces from "./FairPlaces.ts"

/**
 * Two, for a 2-core machine: measured with `bench/abuse/sign-in-storm.ts`, a storm at this cap
 * kept another tenant's API p99 at 0.8x to 2.9x of its quiet figure (two runs on shared cores),
 * where without a cap it grew 25-fold; a cap of 1 was no steadier.
 */
export const defaultHashesInFlight = 2

/** `PASSWORD_HASHES_IN_FLIGHT`: the scrypt computations allowed at once in this process. */
export const hashesInFlight = Config.schema(
  Schema.FiniteFromString.check(Schema.isInt(), Schema.isBetween({ minimum: 1, maximum: 64 })),
  "PASSWORD_HASHES_IN_FLIGHT"
).pipe(Config.withDefault(defaultHashesInFlight))

/**
 * At about ten hashes a second per place, 32 addresses of two waiters each are three seconds of
 * work for two places: a turn comes within `longestWait` or is refused, never held longer.
 */
export const bounds: FairQueue.Bounds = { perAddress: 2, perAccount: 4, addresses: 32, first: 16 }

export const longestWait = Duration.seconds(3)

/** `Retry-After` counts whole seconds; a hash in flight ends within about a tenth of one. */
const busy = new HashingBusy({ retryAfterSeconds: 1 })

export const make = (inFlight: number) =>
  Effect.sync(() => {
    const places = FairPlaces.make(inFlight)

    /**
     * `work` (a hash) once a place is free for `ticket`; the place is held until the work ends,
     * even when the sign-in is interrupted, since a hash cannot be stopped.
     */
    const withTurn = <A, E, R>(
      ticket: FairQueue.Ticket,
      work: Effect.Effect<A, E, R>
    ): Effect.Effect<A, E | HashingBusy, R> =>
      Effect.uninterruptibleMask((restore) =>
        Effect.suspend((): Effect.Effect<A, E | HashingBusy, R> => {
          const run = Effect.ensuring(
            restore(work),
            Effect.sync(() => places.release())
          )
          if (places.takeFree()) return run
          const waiter = places.wait(ticket, bounds)
          if (waiter === undefined) return Effect.fail(busy)
          // The place may be given in the same instant the wait ends: whoever holds it runs.
          const giveUp = Effect.sync(() => places.giveUp(waiter))
          return restore(Effect.timeoutOption(Deferred.await(waiter.turn), longestWait)).pipe(
            Effect.onInterrupt(() => giveUp),
            Effect.flatMap(
              (): Effect.Effect<A, E | HashingBusy, R> =>
                waiter.given ? run : Effect.andThen(giveUp, Effect.fail(busy))
            )
          )
        })
      )

    return { withTurn }
  })
