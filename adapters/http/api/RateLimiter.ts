/**
 * Rate limits in this process, as token buckets: one per key (`RATE_LIMIT_PER_SECOND`, default
 * 20, and `RATE_LIMIT_BURST`, default 100), and one per organization, all its keys together
 * (`ORG_RATE_LIMIT_PER_SECOND`, default 50, and `ORG_RATE_LIMIT_BURST`, default 250, or the
 * organization's own limit that an operator set). With several API processes each keeps its own
 * buckets, so a key or an organization may reach its limit once per process.
 */
import { Clock, Config, Context, Effect, Layer, Schema } from "effect"
import * as RateLimit from "../../../core/domain/RateLimit.ts"

export class RateLimiter extends Context.Service<
  RateLimiter,
  {
    readonly policy: RateLimit.RateLimitPolicy
    /** The organizations' limit where an operator set none of their own. */
    readonly organizationPolicy: RateLimit.RateLimitPolicy
    readonly take: (keyId: string) => Effect.Effect<RateLimit.Decision>
    /** Takes from the organization's bucket under `policy` (its own limit, or the default). */
    readonly takeOrganization: (orgId: string, policy: RateLimit.RateLimitPolicy) => Effect.Effect<RateLimit.Decision>
  }
>()("adapters/http/RateLimiter") {}

const perSecond = Schema.FiniteFromString.check(Schema.isGreaterThan(0))
const burst = Schema.FiniteFromString.check(Schema.isInt(), Schema.isGreaterThanOrEqualTo(1))

export const policy = Config.all({
  perSecond: Config.schema(perSecond, "RATE_LIMIT_PER_SECOND").pipe(Config.withDefault(20)),
  burst: Config.schema(burst, "RATE_LIMIT_BURST").pipe(Config.withDefault(100))
})

// Above the per-key defaults, so that a tenant's one busy key never meets its organization's limit.
export const organizationPolicy = Config.all({
  perSecond: Config.schema(perSecond, "ORG_RATE_LIMIT_PER_SECOND").pipe(Config.withDefault(50)),
  burst: Config.schema(burst, "ORG_RATE_LIMIT_BURST").pipe(Config.withDefault(250))
})

/** Buckets held before the full ones are forgotten (a full bucket is what an unknown id gets). */
const sweepAbove = 100_000

/**
 * Buckets by id, each taken from under the policy given with it. Ids come and go (a dashboard
 * session's bucket is keyed by the session), so the map is swept of full buckets past a size.
 */
const buckets = () => {
  const held = new Map<string, { readonly bucket: RateLimit.Bucket; readonly limits: RateLimit.RateLimitPolicy }>()
  const sweep = (now: number) => {
    for (const [id, { bucket, limits }] of held) {
      if (bucket.tokens + ((now - bucket.atMillis) / 1000) * limits.perSecond >= limits.burst) held.delete(id)
    }
  }
  return (id: string, limits: RateLimit.RateLimitPolicy) =>
    Effect.map(Clock.currentTimeMillis, (now) => {
      if (held.size >= sweepAbove) sweep(now)
      const decision = RateLimit.take(limits, held.get(id)?.bucket ?? RateLimit.fullBucket(limits, now), now)
      held.set(id, { bucket: decision.bucket, limits })
      return decision
    })
}

export const make = (limits: RateLimit.RateLimitPolicy, organizationLimits: RateLimit.RateLimitPolicy) =>
  Effect.sync(() => {
    const keys = buckets()
    return RateLimiter.of({
      policy: limits,
      organizationPolicy: organizationLimits,
      take: (keyId) => keys(keyId, limits),
      takeOrganization: buckets()
    })
  })

export const layer = Layer.effect(
  RateLimiter,
  Effect.flatMap(Config.all([policy, organizationPolicy]), ([limits, organizationLimits]) =>
    make(limits, organizationLimits)
  )
)
