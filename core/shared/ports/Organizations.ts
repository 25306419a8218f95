/**
 * The organizations that own keys, vendors and receivables; managed by operators. A storage port:
 * it stores and finds rows and holds no policy (names are checked by their callers). Depends on
 * `effect` and the domain only.
 */
import { Context, type DateTime, type Effect, type Option } from "effect"
import type { OrgId } from "../domain/Ids.ts"
import type { RateLimitPolicy } from "../domain/RateLimit.ts"

export interface Organization {
  readonly id: OrgId
  readonly name: string
  readonly createdAt: DateTime.Utc
  /** The organization's own rate limit, all its keys together, set by an operator; null: the service's default. */
  readonly rateLimit: RateLimitPolicy | null
}

export class Organizations extends Context.Service<
  Organizations,
  {
    /** Stores a new organization under a fresh id; the name must not be empty. */
    readonly create: (name: string) => Effect.Effect<Organization>
    /** All organizations, by name then id. */
    readonly list: Effect.Effect<ReadonlyArray<Organization>>
    /** One organization; none when no organization has the id (in any letter case). */
    readonly find: (id: OrgId) => Effect.Effect<Option.Option<Organization>>
    /** Sets the organization's own rate limit, or clears it with null; none when no organization has the id. */
    readonly setRateLimit: (id: OrgId, limit: RateLimitPolicy | null) => Effect.Effect<Option.Option<Organization>>
  }
>()("core/Organizations") {}
