/**
 * Expired dashboard sessions are deleted, not only refused: at start and every 15 minutes, the
 * sessions past the policy's absolute limit or idle limit (`core/accounts/domain/Dashboard.ts`) are
 * removed, so the table holds live sessions only and a stolen table holds no old ones.
 */
import { DateTime, Duration, Effect, Layer, Schedule } from "effect"
import * as PgSessionStore from "../adapters/postgres/PgSessionStore.ts"
import { sessionPolicy } from "../core/accounts/domain/Dashboard.ts"
import { SessionStore } from "../core/accounts/ports/SessionStore.ts"

/** Removes the expired sessions once; how many. */
export const apply = Effect.gen(function* () {
  const now = yield* DateTime.now
  const removed = yield* (yield* SessionStore).removeExpired(
    DateTime.subtractDuration(now, sessionPolicy.absolute),
    DateTime.subtractDuration(now, sessionPolicy.idle)
  )
  if (removed > 0) yield* Effect.logDebug("expired dashboard sessions removed").pipe(Effect.annotateLogs({ removed }))
  return removed
})

export const layer = Layer.effectDiscard(
  Effect.forkScoped(
    apply.pipe(
      Effect.catchCause((cause) => Effect.logWarning("expired dashboard sessions could not be removed", cause)),
      Effect.repeat(Schedule.spaced(Duration.minutes(15)))
    )
  )
).pipe(Layer.provide(PgSessionStore.layer))
