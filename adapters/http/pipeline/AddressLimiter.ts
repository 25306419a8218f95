/**
 * Rate limits per client address for the requests no key vouches for: refused ones (no key, a
 * bad or revoked key, an unknown route without a key) and the public pages. A flood from one
 * address is then answered 429 at once, without key lookups or queries, whatever it sends
 * (`UNAUTHENTICATED_RATE_LIMIT_PER_SECOND`, default 5, and `UNAUTHENTICATED_RATE_LIMIT_BURST`,
 * default 50). Requests with an accepted key are limited per key instead (`RateLimiter.ts`).
 */
import { Clock, Config, Context, Effect, Layer, Schema } from "effect"
import * as RateLimit from "../../../core/shared/domain/RateLimit.ts"

export class AddressLimiter extends Context.Service<
  AddressLimiter,
  {
    readonly policy: RateLimit.RateLimitPolicy
    /** Whether the address may be served now, without spending anything: the decision if it may not. */
    readonly refusal: (address: string) => Effect.Effect<RateLimit.Decision | undefined>
    /** Spends one request of the address's allowance. */
    readonly spend: (address: string) => Effect.Effect<void>
  }
>()("adapters/http/AddressLimiter") {}

export const policy = Config.all({
  perSecond: Config.schema(
    Schema.FiniteFromString.check(Schema.isGreaterThan(0)),
    "UNAUTHENTICATED_RATE_LIMIT_PER_SECOND"
  ).pipe(Config.withDefault(5)),
  burst: Config.schema(
    Schema.FiniteFromString.check(Schema.isInt(), Schema.isGreaterThanOrEqualTo(1)),
    "UNAUTHENTICATED_RATE_LIMIT_BURST"
  ).pipe(Config.withDefault(50))
})

/** Addresses tracked before the full allowances are forgotten: the map stays bounded under a spread flood. */
const sweepAbove = 100_000

export const make = (limits: RateLimit.RateLimitPolicy) =>
  Effect.sync(() => {
    // The TAT of each address (`RateLimit.take`); one past is a full allowance and may go.
    const limitsAt = new Map<string, number>()
    const sweep = (now: number) => {
      for (const [address, tat] of limitsAt) if (tat <= now) limitsAt.delete(address)
    }
    const refusal = (address: string) =>
      Effect.map(Clock.currentTimeMillis, (now) => {
        const decision = RateLimit.take(limits, limitsAt.get(address), now)
        return decision.allowed ? undefined : decision
      })
    const spend = (address: string) =>
      Effect.map(Clock.currentTimeMillis, (now) => {
        if (limitsAt.size >= sweepAbove) sweep(now)
        limitsAt.set(address, RateLimit.take(limits, limitsAt.get(address), now).tatMillis)
      })
    return AddressLimiter.of({ policy: limits, refusal, spend })
  })

export const layer = Layer.effect(AddressLimiter, Effect.flatMap(policy, make))
