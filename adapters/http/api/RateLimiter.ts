/**
 * Rate limits per API key, in this process: a token bucket per key (`RATE_LIMIT_PER_SECOND`,
 * default 20, and `RATE_LIMIT_BURST`, default 100). With several API processes each keeps its
 * own buckets, so a key may reach the limit once per process.
 */
import { Clock, Config, Context, Effect, Layer, Schema } from "effect"
import * as RateLimit from "../../../core/domain/RateLimit.ts"

export class RateLimiter extends Context.Service<
  RateLimiter,
  {
    readonly policy: RateLimit.RateLimitPolicy
    readonly take: (keyId: string) => Effect.Effect<RateLimit.Decision>
  }
>()("adapters/http/RateLimiter") {}

export const policy = Config.all({
  perSecond: Config.schema(Schema.FiniteFromString.check(Schema.isGreaterThan(0)), "RATE_LIMIT_PER_SECOND").pipe(
    Config.withDefault(20)
  ),
  burst: Config.schema(
    Schema.FiniteFromString.check(Schema.isInt(), Schema.isGreaterThanOrEqualTo(1)),
    "RATE_LIMIT_BURST"
  ).pipe(Config.withDefault(100))
})

export const make = (limits: RateLimit.RateLimitPolicy) =>
  Effect.sync(() => {
    const buckets = new Map<string, RateLimit.Bucket>()
    const take = (keyId: string) =>
      Effect.map(Clock.currentTimeMillis, (now) => {
        const decision = RateLimit.take(limits, buckets.get(keyId) ?? RateLimit.fullBucket(limits, now), now)
        buckets.set(keyId, decision.bucket)
        return decision
      })
    return RateLimiter.of({ policy: limits, take })
  })

export const layer = Layer.effect(RateLimiter, Effect.flatMap(policy, make))
