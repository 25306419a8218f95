/**
 * Where rate limits keep their state: one theoretical arrival time per limit (`domain/RateLimit.ts`),
 * read and moved on in one step per request, by the store's own clock. A store shared by several
 * processes makes a limit hold across them; the memory twin holds it in one process. Limits are
 * named by their caller (`key:<id>`, `org:<id>`, `session:<digest>`); a store may forget a limit
 * once it is full again. Depends on `effect` and the domain.
 */
import { Context, type Effect, Schema } from "effect"
import type { Decision, RateLimitPolicy } from "../domain/RateLimit.ts"

export interface NamedLimit {
  readonly name: string
  readonly policy: RateLimitPolicy
}

/** The store could not be asked (a shared store that is unreachable); the caller decides what then. */
export class RateLimitStoreUnavailable extends Schema.TaggedError<RateLimitStoreUnavailable>()(
  "RateLimitStoreUnavailable",
  { message: Schema.String }
) {}

export class RateLimitStore extends Context.Service<
  RateLimitStore,
  {
    /** One request against the limit named `limit` under `policy`, decided and counted at once. */
    readonly take: (limit: string, policy: RateLimitPolicy) => Effect.Effect<Decision, RateLimitStoreUnavailable>
    /**
     * One request against two limits in one step: the second (an organization's) is taken only
     * when the first (its key's) lets the request through, so a request held back by the first
     * spends nothing of the second.
     */
    readonly takeBoth: (
      first: NamedLimit,
      second: NamedLimit
    ) => Effect.Effect<{ readonly first: Decision; readonly second: Decision | undefined }, RateLimitStoreUnavailable>
  }
>()("core/RateLimitStore") {}
