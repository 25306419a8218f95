/**
 * Where the processes on one database keep their leased shares of each budget in flight
 * (`core/access/domain/InFlightShares.ts`): a process asks for a share of a key's and its
 * organization's budgets when it needs more than it holds, renews its leases while it lives, and
 * gives them back when it stops. Admissions themselves never reach it. Depends on `effect` alone.
 */
import { Context, type Duration, type Effect } from "effect"
import type { InFlightCaps, InFlightOwner, InFlightStoreUnavailable } from "./InFlightStore.ts"

/** Shares of a key's budget and of its organization's. */
export interface OwnerShares {
  readonly key: number
  readonly organization: number
}

export interface Granted extends OwnerShares {
  readonly short: "key" | "organization" | null
}

/** A share the process still needs of a budget: a key's (`owner` its id) or an organization's (`owner` = `orgId`). */
export interface ShareNeed {
  readonly orgId: string
  readonly owner: string
  readonly share: number
}

export class InFlightShareStore extends Context.Service<
  InFlightShareStore,
  {
    /**
     * Sets the process's shares of the owner's key and organization, leased for `lease`: if the
     * other processes' live shares leave what the admission needs of both caps, to what it wants
     * as far as they leave; otherwise to one less than it needs (as far as they leave). What was
     * granted, and which cap fell short if one did.
     */
    readonly grant: (
      process: string,
      owner: InFlightOwner,
      need: OwnerShares,
      want: OwnerShares,
      caps: InFlightCaps,
      lease: Duration.Duration
    ) => Effect.Effect<Granted, InFlightStoreUnavailable>
    /**
     * Extends the process's leases that have not ended, each shrunk to what it still needs (given
     * back at zero); the shares it still holds, by owner.
     */
    readonly renew: (
      process: string,
      needs: ReadonlyArray<ShareNeed>,
      lease: Duration.Duration
    ) => Effect.Effect<ReadonlyMap<string, number>, InFlightStoreUnavailable>
    /** Gives back the process's shares of these organizations and their keys. */
    readonly release: (process: string, orgIds: ReadonlyArray<string>) => Effect.Effect<void, InFlightStoreUnavailable>
  }
>()("core/InFlightShareStore") {}
