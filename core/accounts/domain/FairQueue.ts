/**
 * Who gets the next password hash when every place is taken: a queue kept per client address and
 * served round robin, so that a flood from many addresses waits its turn beside everyone else
 * instead of ahead of them, with a first class (an account's owner from an address that signed in
 * to it before) served before all. Everything is bounded: waiters per address, per account and in
 * the first class, and addresses waiting at once; past a bound an arrival is refused at once, which
 * costs nothing. Pure: the service that hands out the places (`services/HashTurns.ts`) keeps the
 * queue and the clock.
 */

export interface Ticket {
  /** The client address as throttled (an IPv6 /64), or "" when unknown. */
  readonly address: string
  /** The normalized account, or undefined when the text named none. */
  readonly account: string | undefined
  /** Served before every waiter without it. */
  readonly first: boolean
}

export interface Bounds {
  readonly perAddress: number
  readonly perAccount: number
  readonly addresses: number
  readonly first: number
}

export interface Waiting<A> {
  readonly ticket: Ticket
  readonly item: A
}

export interface FairQueue<A> {
  readonly first: ReadonlyArray<Waiting<A>>
  /** The addresses with waiters, in the order of their next turn. */
  readonly rotation: ReadonlyArray<string>
  readonly byAddress: ReadonlyMap<string, ReadonlyArray<Waiting<A>>>
  readonly byAccount: ReadonlyMap<string, number>
}

export const empty = <A>(): FairQueue<A> => ({ first: [], rotation: [], byAddress: new Map(), byAccount: new Map() })

export const size = <A>(queue: FairQueue<A>): number =>
  queue.first.length + [...queue.byAddress.values()].reduce((sum, waiting) => sum + waiting.length, 0)

const countAccount = (byAccount: ReadonlyMap<string, number>, account: string | undefined, by: number) => {
  if (account === undefined) return byAccount
  const next = new Map(byAccount)
  const count = (next.get(account) ?? 0) + by
  if (count === 0) next.delete(account)
  else next.set(account, count)
  return next
}

/** The queue with `item` waiting, or undefined when a bound refuses it. */
export const offer = <A>(queue: FairQueue<A>, ticket: Ticket, item: A, bounds: Bounds): FairQueue<A> | undefined => {
  // One account's waiters are bounded whichever addresses they come from, so that a flood aimed at
  // one account from many addresses cannot fill the queue with it.
  if (ticket.account !== undefined && (queue.byAccount.get(ticket.account) ?? 0) >= bounds.perAccount) {
    return undefined
  }
  const byAccount = countAccount(queue.byAccount, ticket.account, 1)
  if (ticket.first) {
    if (queue.first.length >= bounds.first) return undefined
    return { ...queue, first: [...queue.first, { ticket, item }], byAccount }
  }
  const waiting = queue.byAddress.get(ticket.address)
  if (waiting === undefined && queue.rotation.length >= bounds.addresses) return undefined
  if (waiting !== undefined && waiting.length >= bounds.perAddress) return undefined
  const byAddress = new Map(queue.byAddress).set(ticket.address, [...(waiting ?? []), { ticket, item }])
  // A new address takes the last turn: those already waiting go first.
  const rotation = waiting === undefined ? [...queue.rotation, ticket.address] : queue.rotation
  return { first: queue.first, rotation, byAddress, byAccount }
}

/** The next waiter and the queue without it: the first class in order, then one per address in turn. */
export const take = <A>(
  queue: FairQueue<A>
): { readonly next: Waiting<A>; readonly queue: FairQueue<A> } | undefined => {
  const [firstOne, ...firstRest] = queue.first
  if (firstOne !== undefined) {
    return {
      next: firstOne,
      queue: { ...queue, first: firstRest, byAccount: countAccount(queue.byAccount, firstOne.ticket.account, -1) }
    }
  }
  const [address, ...others] = queue.rotation
  if (address === undefined) return undefined
  const [next, ...rest] = queue.byAddress.get(address) ?? []
  if (next === undefined) return undefined
  const byAddress = new Map(queue.byAddress)
  if (rest.length === 0) byAddress.delete(address)
  else byAddress.set(address, rest)
  // Served, the address goes to the back of the line if it still has waiters.
  const rotation = rest.length === 0 ? others : [...others, address]
  return {
    next,
    queue: {
      first: queue.first,
      rotation,
      byAddress,
      byAccount: countAccount(queue.byAccount, next.ticket.account, -1)
    }
  }
}

/** The queue without `item` (a waiter that gave up); the same queue when it is not waiting. */
export const withdraw = <A>(queue: FairQueue<A>, item: A): FairQueue<A> => {
  const inFirst = queue.first.find((waiting) => waiting.item === item)
  if (inFirst !== undefined) {
    return {
      ...queue,
      first: queue.first.filter((waiting) => waiting !== inFirst),
      byAccount: countAccount(queue.byAccount, inFirst.ticket.account, -1)
    }
  }
  for (const [address, waiting] of queue.byAddress) {
    const found = waiting.find((one) => one.item === item)
    if (found === undefined) continue
    const rest = waiting.filter((one) => one !== found)
    const byAddress = new Map(queue.byAddress)
    if (rest.length === 0) byAddress.delete(address)
    else byAddress.set(address, rest)
    return {
      first: queue.first,
      rotation: rest.length === 0 ? queue.rotation.filter((one) => one !== address) : queue.rotation,
      byAddress,
      byAccount: countAccount(queue.byAccount, found.ticket.account, -1)
    }
  }
  return queue
}
