/**
 * The event loop's time for CPU-heavy answers, shared by organization: a heavy answer (a page
 * written as it is read, `StreamedPage.ts`) makes each of its pieces in a turn, one turn at a time
 * in the process, and when pieces of several organizations wait the turns go round robin by
 * organization (`core/accounts/domain/FairQueue.ts`, keyed by organization here), so that one
 * tenant's many heavy pages cannot take another tenant's turn. A turn ends with a yield
 * (`Effect.yieldNow`: effect's scheduler resumes the fiber from `setImmediate`, after the loop has
 * polled for I/O), so that a small request that arrived meanwhile is read and answered between two
 * pieces.
 * A turn is only the synchronous making of a piece: waiting for the database or for a client that
 * reads slowly holds none.
 */
import { Context, Deferred, Effect, Layer } from "effect"
import type * as FairQueue from "../../../core/accounts/domain/FairQueue.ts"
import * as FairPlaces from "../../../core/accounts/services/FairPlaces.ts"
import type { OrgId } from "../../../core/shared/domain/Ids.ts"
import type { Turn } from "./StreamedPage.ts"

export class HeavyTurns extends Context.Service<
  HeavyTurns,
  {
    /** The turns of `org`'s heavy answers: each makes a piece once the organization's turn comes. */
    readonly of: (org: OrgId) => Turn
  }
>()("adapters/http/HeavyTurns") {}

/**
 * One at a time: a piece is synchronous work, so two granted at once would only run back to back
 * in one turn of the loop, with nothing served between them.
 */
const turnsAtOnce = 1

/**
 * The waiting pieces are those of the heavy answers in flight, one each: the per-organization
 * requests in flight (`ORG_MAX_IN_FLIGHT`) bound them, so the queue adds no bound of its own.
 */
const unbounded: FairQueue.Bounds = {
  perAddress: Number.MAX_SAFE_INTEGER,
  perAccount: Number.MAX_SAFE_INTEGER,
  addresses: Number.MAX_SAFE_INTEGER,
  first: 0
}

export const make = Effect.sync(() => {
  const places = FairPlaces.make(turnsAtOnce)

  const of =
    (org: OrgId): Turn =>
    <A>(make: () => A) =>
      Effect.uninterruptibleMask((restore) =>
        Effect.suspend(() => {
          // The turn is held until the loop has polled for I/O once after the piece: the other
          // heavy fibers resumed in the same batch of effect's scheduler wait instead of making
          // theirs back to back, so a loop's turn holds at most one piece.
          const run = Effect.ensuring(
            Effect.andThen(Effect.sync(make), (piece) => Effect.as(Effect.yieldNow, piece)),
            Effect.sync(places.release)
          )
          if (places.takeFree()) return run
          const waiter = places.wait({ address: org, account: undefined, first: false }, unbounded)!
          // The turn may be given in the same instant the answer ends: then it is passed on.
          const giveUp = Effect.sync(() => places.giveUp(waiter))
          return restore(Deferred.await(waiter.turn)).pipe(
            Effect.onInterrupt(() => giveUp),
            Effect.andThen(run)
          )
        })
      )

  return HeavyTurns.of({ of })
})

export const layer = Layer.effect(HeavyTurns, make)
