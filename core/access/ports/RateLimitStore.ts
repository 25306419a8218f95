/**
 * Where rate limits keep their state: one theoretical arrival time per limit (`domain/RateLimit.ts`),
 * read and moved on in one step per request, by the store's own clock. A store shared by several
 * processes makes a limit hold across them; the memory twin holds it in one process. Limits are
 * named by their caller (`key:<id>`, `org:<id>`, `session:<digest>`); a store may forget a limit
 * once it is full again. A key's request also asks whether the key is still live, where the store
 * holds the keys as well (PostgreSQL): a key revoked through another process is then refused even
 * if the revocation's announcement never arrives, within a second (the PostgreSQL store spends a
 * key's tokens from a local allowance and asks the database, and checks the key, at least once a
 * second). Depends on `effect` and the domain.
 */
import { Context, type Effect, Schema } from "effect"
import type { Decision, RateLimitPolicy } from "../../shared/domain/RateLimit.ts"

export interface NamedLimit {
  readonly name: string
  readonly policy: RateLimitPolicy
}

/** The store could not be asked (a shared store that is unreachable); the caller decides what then. */
export class RateLimitStoreUnavailable extends Schema.TaggedError<RateLimitStoreUnavailable>()(
  "RateLimitStoreUnavailable",
  { message: Schema.String }
) {}

/** The key a request carries: its id and its organization's. */
export interface KeyRef {
  readonly keyId: string
  readonly orgId: string
}

/**
 * What a key's step did: took its limits (the organization's only while the key's own let the
 * request through), or found the key revoked and took nothing.
 */
export type KeyStep =
  | { readonly _tag: "Taken"; readonly first: Decision; readonly second: Decision | undefined }
  | { readonly _tag: "Revoked" }

export class RateLimitStore extends Context.Service<
  RateLimitStore,
  {
    /** One request against the limit named `limit` under `policy`, decided and counted at once. */
    readonly take: (limit: string, policy: RateLimitPolicy) => Effect.Effect<Decision, RateLimitStoreUnavailable>
    /**
     * One request of `key` against two limits in one step: the second (its organization's) is
     * taken only when the first (its own) lets the request through, so a request held back by the
     * first spends nothing of the second. A store that holds the keys too answers `Revoked` for a
     * key it found revoked, taking nothing: the PostgreSQL store when it next asks the database
     * for the key, within a second of the revocation. A store that does not (the memory twin, in
     * one process, where a revocation reaches the cache of verified keys at once) always takes.
     */
    readonly takeForKey: (
      key: KeyRef,
      first: NamedLimit,
      second: NamedLimit
    ) => Effect.Effect<KeyStep, RateLimitStoreUnavailable>
  }
>()("core/RateLimitStore") {}
