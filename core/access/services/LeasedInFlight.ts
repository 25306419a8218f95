/**
 * An `InFlightStore` for one process among several, over an `InFlightShareStore`: the process holds
 * a leased share of each key's and organization's budget in flight and admits within it on its own,
 * so that a key answered at a steady pace costs no statement per request. When a request finds its
 * shares full, the process asks for a place more for each admission waiting, which the store
 * grants only out of what the other processes' live shares leave of the cap: the caps hold across processes, and a process
 * alone grows its share up to the whole cap. Every heartbeat renews the leases, each shrunk to the
 * most the process had in use since the previous one, so that an idle share returns within two
 * heartbeats; a process that stops gives its shares back, and one that dies stops holding them when
 * its leases end. A lease this process could not renew counts for nothing here either, from the
 * moment it would end had the renewal been the last one: a grant is asked for again then.
 * Depends on `effect` and core only.
 */
import { Clock, Duration, Effect, Layer, Schedule, Semaphore } from "effect"
import { InFlightShareStore, type ShareNeed } from "../ports/InFlightShareStore.ts"
import { type InFlightAdmission, type InFlightCaps, type InFlightOwner, InFlightStore } from "../ports/InFlightStore.ts"

export interface LeaseTiming {
  /** How long a share is held past its last grant or renewal. */
  readonly lease: Duration.Duration
  /** How often the leases are renewed and idle shares shrunk; well under `lease`. */
  readonly heartbeat: Duration.Duration
}

/** One budget as this process sees it: its share, the places in use, and the most in use since the last heartbeat. */
interface Budget {
  readonly orgId: string
  share: number
  inUse: number
  peak: number
  /** Admissions waiting to ask for a share of it, so that one grant makes room for them all. */
  pending: number
  /** By this process's clock, when its lease may have ended: the share counts for nothing from then. */
  until: number
}

const hasRoom = (budget: Budget, now: number) => budget.inUse < budget.share && budget.until > now

export const make = (process: string, timing: LeaseTiming) =>
  Effect.gen(function* () {
    const store = yield* InFlightShareStore
    const leaseMillis = Duration.toMillis(timing.lease)
    const keys = new Map<string, Budget>()
    const organizations = new Map<string, Budget>()
    // Grants and renewals one at a time: each sets shares from what the process has in use, which
    // must not change under it.
    const asking = yield* Semaphore.make(1)

    const budget = (budgets: Map<string, Budget>, id: string, orgId: string) => {
      const known = budgets.get(id)
      if (known !== undefined) return known
      const created: Budget = { orgId, share: 0, inUse: 0, peak: 0, pending: 0, until: 0 }
      budgets.set(id, created)
      return created
    }

    const take = (key: Budget, organization: Budget): InFlightAdmission => {
      for (const taken of [key, organization]) {
        taken.inUse += 1
        taken.peak = Math.max(taken.peak, taken.inUse)
      }
      return {
        _tag: "Admitted",
        release: Effect.sync(() => {
          key.inUse -= 1
          organization.inUse -= 1
        })
      }
    }

    const admitHere = (owner: InFlightOwner, now: number) => {
      const key = keys.get(owner.keyId)
      const organization = organizations.get(owner.orgId)
      return key !== undefined && organization !== undefined && hasRoom(key, now) && hasRoom(organization, now)
        ? take(key, organization)
        : undefined
    }

    /**
     * A budget this process holds whole (its live share is the cap) and has full: no other process
     * holds a place of it, so the store could grant none. Refused here, without a statement, which
     * each refusal of a flood used to cost, one at a time behind `asking`.
     */
    const refusedHere = (owner: InFlightOwner, caps: InFlightCaps, now: number): InFlightAdmission | undefined => {
      const full = (held: Budget | undefined, cap: number) =>
        held !== undefined && held.share >= cap && held.inUse >= held.share && held.until > now
      if (full(keys.get(owner.keyId), caps.perKey)) return { _tag: "Refused", scope: "key" }
      if (full(organizations.get(owner.orgId), caps.perOrganization)) return { _tag: "Refused", scope: "organization" }
      return undefined
    }

    const askAndAdmit = (owner: InFlightOwner, caps: InFlightCaps, key: Budget, organization: Budget) =>
      Effect.gen(function* () {
        const asked = yield* Clock.currentTimeMillis
        const admitted = admitHere(owner, asked)
        if (admitted !== undefined) return admitted
        // A full share, or one whose lease may have ended, asks for a place more than in use for
        // each admission waiting on it: a burst costs a grant or two, not one each.
        const need = (of: Budget) => (hasRoom(of, asked) ? of.share : of.inUse + 1)
        const want = (of: Budget) => (hasRoom(of, asked) ? of.share : of.inUse + of.pending)
        const needs = { key: need(key), organization: need(organization) }
        const wants = { key: want(key), organization: want(organization) }
        // A grant that falls short gives one less than needed, which may be less than a share held
        // now: meanwhile, admissions of other keys of the organization count on no more than that,
        // or another process could be granted the difference while this one still admits into it.
        key.share = Math.min(key.share, needs.key - 1)
        organization.share = Math.min(organization.share, needs.organization - 1)
        // Only the statement may be interrupted (the request's deadline): what it grants is taken
        // here in one piece, and a grant lost to an interruption leaves the shares lower, never higher.
        const granted = yield* Effect.interruptible(store.grant(process, owner, needs, wants, caps, timing.lease))
        key.share = granted.key
        organization.share = granted.organization
        key.until = organization.until = asked + leaseMillis
        if (hasRoom(key, asked) && hasRoom(organization, asked)) return take(key, organization)
        return { _tag: "Refused", scope: granted.short ?? (hasRoom(key, asked) ? "organization" : "key") } as const
      })

    const heartbeat = Effect.gen(function* () {
      const started = yield* Clock.currentTimeMillis
      const needs: Array<ShareNeed> = []
      const named: Array<[string, Budget]> = []
      for (const budgets of [keys, organizations]) {
        for (const [owner, held] of budgets) {
          if (held.share === 0 && held.inUse === 0 && held.pending === 0) budgets.delete(owner)
          else if (held.share > 0) {
            needs.push({ orgId: held.orgId, owner, share: Math.min(held.share, Math.max(held.inUse, held.peak)) })
            named.push([owner, held])
          }
          held.peak = held.inUse
        }
      }
      if (needs.length === 0) return
      // A renewal never grows a share: the smaller one holds here before the store shrinks it, so
      // that no admission meanwhile counts on room another process may then be granted.
      for (const [index, [, held]] of named.entries()) held.share = needs[index]!.share
      const kept = yield* store.renew(process, needs, timing.lease)
      for (const [owner, held] of named) {
        held.share = kept.get(owner) ?? 0
        if (kept.has(owner)) held.until = started + leaseMillis
      }
    }).pipe(
      asking.withPermits(1),
      Effect.catchTag("InFlightStoreUnavailable", (error) =>
        Effect.logWarning("requests in flight: could not renew this process's shares", error.message)
      )
    )

    yield* Effect.forkScoped(Effect.repeat(heartbeat, Schedule.spaced(timing.heartbeat)))
    yield* Effect.addFinalizer(() =>
      Effect.suspend(() =>
        store.release(process, [...new Set([...keys.values(), ...organizations.values()].map((held) => held.orgId))])
      ).pipe(asking.withPermits(1), Effect.timeout(timing.heartbeat), Effect.ignore)
    )

    return InFlightStore.of({
      // Uninterruptible but for the statement: a place taken here always
      // reaches the caller, who installs its release, since a place lost on the way would shrink
      // the cap of every process until this one restarts.
      admit: (owner, caps) =>
        Effect.uninterruptible(
          Effect.flatMap(Clock.currentTimeMillis, (now) => {
            const admitted = admitHere(owner, now)
            if (admitted !== undefined) return Effect.succeed(admitted)
            const refused = refusedHere(owner, caps, now)
            if (refused !== undefined) return Effect.succeed(refused)
            const key = budget(keys, owner.keyId, owner.orgId)
            const organization = budget(organizations, owner.orgId, owner.orgId)
            key.pending += 1
            organization.pending += 1
            // The turn to ask waits uninterruptibly, behind statements that are not: a request past its
            // deadline leaves at its own statement, at once.
            return asking
              .withPermits(1)(askAndAdmit(owner, caps, key, organization))
              .pipe(
                Effect.ensuring(
                  Effect.sync(() => {
                    key.pending -= 1
                    organization.pending -= 1
                  })
                )
              )
          })
        )
    })
  })

/** The store of a process named `process` (unique among those on the share store), for the layer's lifetime. */
export const layer = (process: string, timing: LeaseTiming): Layer.Layer<InFlightStore, never, InFlightShareStore> =>
  Layer.effect(InFlightStore, make(process, timing))
