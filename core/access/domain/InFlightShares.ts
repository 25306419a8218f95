/**
 * Leased shares of a budget in flight (a key's `KEY_MAX_IN_FLIGHT`, an organization's
 * `ORG_MAX_IN_FLIGHT`), the table that every process on a database keeps together: each process
 * holds a share of an owner's budget, admits within it on its own, and renews its leases while it
 * lives. The invariant: for every owner, the shares whose lease has not ended never add up past
 * the cap, whatever the order of grants, renewals, releases and expiries. A grant may only take
 * what the live shares of the other processes leave; a renewal never grows a share; a lease that
 * ended counts for nothing and is never renewed, so a dead process's share returns on its own.
 * `in_flight_shares` (migration 0030) keeps the same rules in SQL. Depends on nothing.
 */

export interface ShareLease {
  readonly process: string
  /** A key's id, or an organization's for the budget of all its keys. */
  readonly owner: string
  readonly share: number
  readonly expiresAt: number
}

export type ShareTable = ReadonlyArray<ShareLease>

const isLive = (lease: ShareLease, now: number) => lease.expiresAt > now

/** What the live shares of `owner` add up to at `now`. */
export const liveTotal = (table: ShareTable, owner: string, now: number) =>
  table.reduce((sum, lease) => (lease.owner === owner && isLive(lease, now) ? sum + lease.share : sum), 0)

export interface ShareAsk {
  readonly owner: string
  /** The share the admission needs (what is in use and its place), at most `want`. */
  readonly need: number
  /** The share the process wants to hold, in all, room for admissions waiting included; less than it holds gives the rest back. */
  readonly want: number
  readonly cap: number
}

export interface GrantRequest {
  readonly process: string
  /** The budgets an admission needs a place under: a key's and its organization's. */
  readonly asks: ReadonlyArray<ShareAsk>
  readonly now: number
  readonly leaseMillis: number
}

/**
 * Sets the process's share of each owner asked for, leased from `now`. If the other processes'
 * live shares leave what the admission needs of every cap (it needs a place under all of them),
 * each is what it wants or what is left, whichever is less; otherwise, of each, one less than it
 * needs (what it has in use) or what is left, so that a refused admission holds no place idle
 * that another could use. Never below zero. Leases of those owners that ended are dropped on the way.
 */
export const grant = (
  table: ShareTable,
  request: GrantRequest
): {
  readonly table: ShareTable
  readonly granted: ReadonlyArray<number>
  /** The first ask that the others' shares left too little for, if any. */
  readonly short: number | undefined
} => {
  const { process, asks, now } = request
  const asked = new Set(asks.map((ask) => ask.owner))
  const rest = table.filter((lease) => !asked.has(lease.owner) || (lease.process !== process && isLive(lease, now)))
  const left = asks.map((ask) => Math.max(0, ask.cap - liveTotal(rest, ask.owner, now)))
  const short = asks.findIndex((ask, i) => ask.need > left[i]!)
  const whole = short === -1
  const granted = asks.map((ask, i) => Math.max(0, Math.min(whole ? ask.want : ask.need - 1, left[i]!)))
  const leased = asks.flatMap((ask, i) =>
    granted[i]! > 0 ? [{ process, owner: ask.owner, share: granted[i]!, expiresAt: now + request.leaseMillis }] : []
  )
  return { table: [...rest, ...leased], granted, short: whole ? undefined : short }
}

/**
 * Extends the process's live leases from `now`, each shrunk to the share it says it still needs
 * (one that needs none is given back); what it does not name, or whose lease ended, is not
 * renewed. The shares that the process still holds.
 */
export const renew = (
  table: ShareTable,
  process: string,
  needs: ReadonlyMap<string, number>,
  now: number,
  leaseMillis: number
): { readonly table: ShareTable; readonly held: ReadonlyMap<string, number> } => {
  const held = new Map<string, number>()
  const next: Array<ShareLease> = []
  for (const lease of table) {
    const need = needs.get(lease.owner)
    if (lease.process !== process || need === undefined || !isLive(lease, now)) next.push(lease)
    else if (need > 0) {
      const share = Math.min(lease.share, need)
      held.set(lease.owner, share)
      next.push({ ...lease, share, expiresAt: now + leaseMillis })
    }
  }
  return { table: next, held }
}

/** Gives back every share of the process: it stops. */
export const release = (table: ShareTable, process: string): ShareTable =>
  table.filter((lease) => lease.process !== process)
