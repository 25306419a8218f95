/**
 * `RateLimitStore` in memory, over the memory world's `AccessState`: the TAT of each limit by its name, by
 * this process's clock, held to the same contract as `rate_limits` (`test/contracts/RateLimitStore.contract.ts`).
 * Names come and go (a dashboard session's limit is named by the session), so past
 * `sweepAbove` names the full limits are forgotten, as a full limit is what an unknown name gets.
 * Depends on `effect` and core only.
 */
import { Clock, Effect, Layer } from "effect"
import * as RateLimit from "../../shared/domain/RateLimit.ts"
import { type KeyStep, RateLimitStore } from "../ports/RateLimitStore.ts"
import { AccessState } from "./AccessState.ts"

/** Limits held before the full ones are forgotten. */
export const sweepAbove = 100_000

export const layerMemory: Layer.Layer<RateLimitStore, never, AccessState> = Layer.effect(
  RateLimitStore,
  Effect.gen(function* () {
    const { rateLimits } = yield* AccessState
    const take = (limit: string, policy: RateLimit.RateLimitPolicy) =>
      Effect.map(Clock.currentTimeMillis, (now) => {
        if (rateLimits.size >= sweepAbove) {
          for (const [name, tat] of rateLimits) if (tat <= now) rateLimits.delete(name)
        }
        const decision = RateLimit.take(policy, rateLimits.get(limit), now)
        rateLimits.set(limit, decision.tatMillis)
        return decision
      })
    return RateLimitStore.of({
      take,
      // One process: a revocation has already reached its cache of verified keys.
      takeForKey: (_key, first, second) =>
        Effect.flatMap(
          take(first.name, first.policy),
          (decided): Effect.Effect<KeyStep> =>
            decided.allowed
              ? Effect.map(take(second.name, second.policy), (then) => ({
                  _tag: "Taken",
                  first: decided,
                  second: then
                }))
              : Effect.succeed({ _tag: "Taken", first: decided, second: undefined })
        )
    })
  })
)

/** The twin over a state of its own: limits in this process alone, with nothing else to share. */
export const layerOwnState: Layer.Layer<RateLimitStore> = layerMemory.pipe(Layer.provide(AccessState.layer))
