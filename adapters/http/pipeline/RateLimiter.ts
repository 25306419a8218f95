/**
 * Rate limits, by the generic cell rate algorithm (`core/shared/domain/RateLimit.ts`): one limit per key
 * (`RATE_LIMIT_PER_SECOND`, default 20, and `RATE_LIMIT_BURST`, default 100), and one per
 * organization, all its keys together (`ORG_RATE_LIMIT_PER_SECOND`, default 50, and
 * `ORG_RATE_LIMIT_BURST`, default 250, or the organization's own limit that an operator set).
 * Their state is kept by a `RateLimitStore` (`LIMITS_STORE`): in PostgreSQL, shared by every
 * process on the database, the default with `DATABASE_URL`; or in this process's memory, the
 * default with the embedded database, where there is one process and sharing would only cost.
 * While the shared store cannot be reached, each process limits on its own (fail open to the
 * process's limits): the request that passes will most likely be answered 503 by its own queries
 * anyway, and a limiter that refused everything would hide that answer behind a 429.
 */
import { Config, Context, Effect, Layer, Option, Schema } from "effect"
import { layerOwnState as memoryStore } from "../../../core/access/memory/RateLimitStore.ts"
import { RateLimitStore } from "../../../core/access/ports/RateLimitStore.ts"
import type * as RateLimit from "../../../core/shared/domain/RateLimit.ts"

/** The shared store found the key revoked when its request arrived: however recently it was verified. */
export class KeyFoundRevoked extends Schema.TaggedError<KeyFoundRevoked>()("KeyFoundRevoked", {}) {}

export class RateLimiter extends Context.Service<
  RateLimiter,
  {
    readonly policy: RateLimit.RateLimitPolicy
    /** The organizations' limit where an operator set none of their own. */
    readonly organizationPolicy: RateLimit.RateLimitPolicy
    /**
     * Takes from the limit named `limit` under the per-key policy: a key's id, or a name of the
     * caller's that no key's id can be (`session:<digest>`).
     */
    readonly take: (limit: string) => Effect.Effect<RateLimit.Decision>
    /**
     * Takes from a key's limit and then, only if that one let the request through, from its
     * organization's under `organizationPolicy` (its own limit, or the default): one step, with
     * the shared store from this process's allowance or by one statement for both, which also
     * finds a key revoked meanwhile by any process (`KeyFoundRevoked`, nothing taken), within a
     * second of the revocation.
     */
    readonly takeKeyAndOrganization: (
      keyId: string,
      orgId: string,
      organizationPolicy: RateLimit.RateLimitPolicy
    ) => Effect.Effect<
      { readonly key: RateLimit.Decision; readonly organization: RateLimit.Decision | undefined },
      KeyFoundRevoked
    >
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

/**
 * Where limits are kept (`LIMITS_STORE`, `memory` or `postgres`): `postgres` when `DATABASE_URL`
 * is set, since that is how several processes are run; `memory` with the embedded database.
 */
export const limitsStore = Config.all({
  chosen: Config.option(Config.schema(Schema.Literals(["memory", "postgres"]), "LIMITS_STORE")),
  databaseUrl: Config.option(Config.Redacted("DATABASE_URL"))
}).pipe(
  Config.map(({ chosen, databaseUrl }) =>
    Option.getOrElse(chosen, () => (Option.isSome(databaseUrl) ? ("postgres" as const) : ("memory" as const)))
  )
)

/**
 * The limiter over `RateLimitStore`, with this process's own limits for when the store cannot be
 * reached. An organization's limit is named `org:<id>`, apart from its keys' in one store.
 */
export const makeOver = (limits: RateLimit.RateLimitPolicy, organizationLimits: RateLimit.RateLimitPolicy) =>
  Effect.gen(function* () {
    const store = yield* RateLimitStore
    const local = yield* Effect.provide(RateLimitStore, memoryStore)
    const take = (name: string, under: RateLimit.RateLimitPolicy) =>
      store
        .take(name, under)
        .pipe(Effect.catchTag("RateLimitStoreUnavailable", () => Effect.orDie(local.take(name, under))))
    return RateLimiter.of({
      policy: limits,
      organizationPolicy: organizationLimits,
      take: (limit) => take(limit, limits),
      takeKeyAndOrganization: (keyId, orgId, under) => {
        const key = { name: keyId, policy: limits }
        const organization = { name: `org:${orgId}`, policy: under }
        const owner = { keyId, orgId }
        return store.takeForKey(owner, key, organization).pipe(
          // The local twin cannot tell a revoked key: until the store answers again, revocations
          // reach this process by their announcement, as the cache of verified keys receives them.
          Effect.catchTag("RateLimitStoreUnavailable", () => Effect.orDie(local.takeForKey(owner, key, organization))),
          Effect.flatMap((step) =>
            step._tag === "Revoked"
              ? Effect.fail(new KeyFoundRevoked())
              : Effect.succeed({ key: step.first, organization: step.second })
          )
        )
      }
    })
  })

/** The limiter in this process's memory alone. */
export const make = (limits: RateLimit.RateLimitPolicy, organizationLimits: RateLimit.RateLimitPolicy) =>
  Effect.provide(makeOver(limits, organizationLimits), memoryStore)

/** The limiter with its policies from the environment, over the `RateLimitStore` provided. */
export const layer = Layer.effect(
  RateLimiter,
  Effect.flatMap(Config.all([policy, organizationPolicy]), ([limits, organizationLimits]) =>
    makeOver(limits, organizationLimits)
  )
)
