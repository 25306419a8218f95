/**
 * A process's local allowance of one shared rate limit: tokens taken from the shared GCRA bucket a
 * batch at a time (`take` with a cost, in `core/shared/domain/RateLimit.ts`) and spent here, so
 * that a steady key costs the shared store one statement per batch rather than one per request.
 *
 * Every request admitted here spends a token already counted in the shared bucket, so over a whole
 * run the processes together never admit more than the bucket allows. Over a window of time they
 * may admit more by what they held when it began: at most `maxBatch` per process, so the bound is
 * processes x `maxBatch` (`overAdmission`) on top of what the GCRA allows over that window.
 *
 * Sizing rule: a batch is what this process spent of the limit per second since its last batch,
 * times `horizonSeconds` (half a second of its own recent rate), at least 1 and at most
 * `maxBatch`, a tenth of the burst; and never more than the shared bucket had left when last seen.
 * A process with no history of the limit asks for 1.
 *
 * An allowance lapses `lapseMillis` after the statement that refilled it: its next request asks
 * the store again (keeping its tokens), and that statement checks the key as well, so a revocation
 * whose announcement was lost is seen within a second. While the bucket, as last seen, has no
 * token to give until later, a request with no token left is refused here, with no statement.
 * Pure: the caller keeps the allowances and supplies the clock and the store's answers.
 */
import * as RateLimit from "../../shared/domain/RateLimit.ts"

/** How long a refill holds before the store is asked again: the bound on a lost revocation. */
export const lapseMillis = 1000

/** The seconds of this process's recent rate a batch is sized for. */
export const horizonSeconds = 0.5

/** The largest batch: a tenth of the burst, at least 1. */
export const maxBatch = (policy: RateLimit.RateLimitPolicy): number => Math.max(1, Math.floor(policy.burst / 10))

/** How many requests more than the GCRA allows over any window `processes` may admit together. */
export const overAdmission = (policy: RateLimit.RateLimitPolicy, processes: number): number =>
  processes * maxBatch(policy)

export interface Allowance {
  readonly policy: RateLimit.RateLimitPolicy
  /** Tokens taken from the shared bucket and not spent yet. */
  readonly tokens: number
  /** The shared bucket's TAT when last seen, by the store's clock; it never moves back. */
  readonly tatMillis: number
  /** The store's clock minus this process's, as measured at the last refill. */
  readonly offsetMillis: number
  /** This process's clock when the allowance lapses. */
  readonly lapsesAt: number
  /** This process's clock at the last batch taken, and the requests spent since: its recent rate. */
  readonly batchAt: number
  readonly spentSince: number
}

/** What one request needs: a token spent here, a refusal here, or the store asked for `cost` tokens. */
export type Plan =
  | { readonly _tag: "Spend" }
  | { readonly _tag: "Refuse" }
  | { readonly _tag: "Ask"; readonly cost: number }

const usable = (allowance: Allowance | undefined, policy: RateLimit.RateLimitPolicy): allowance is Allowance =>
  allowance !== undefined && allowance.policy.burst === policy.burst && allowance.policy.perSecond === policy.perSecond

/** Where the shared bucket stands at `now`, from its TAT when last seen (others may have taken since). */
const shared = (allowance: Allowance, allowed: boolean, tatMillis: number, now: number) =>
  RateLimit.standing(allowance.policy, allowed, tatMillis, now + allowance.offsetMillis)

/** The batch to ask for: the sizing rule above. */
export const batchSize = (allowance: Allowance | undefined, policy: RateLimit.RateLimitPolicy, now: number): number => {
  if (!usable(allowance, policy)) return 1
  const perSecond = (allowance.spentSince * 1000) / Math.max(1, now - allowance.batchAt)
  const wanted = Math.min(maxBatch(policy), Math.max(1, Math.ceil(perSecond * horizonSeconds)))
  return Math.max(1, Math.min(wanted, shared(allowance, true, allowance.tatMillis, now).remaining))
}

/**
 * What a request against `policy` needs, given the allowance held (undefined: none, or one under
 * another policy, whose tokens are dropped). A lapsed allowance asks the store, for nothing more
 * while it still holds tokens; an empty one refuses while the bucket had nothing to give by now.
 */
export const plan = (allowance: Allowance | undefined, policy: RateLimit.RateLimitPolicy, now: number): Plan => {
  if (!usable(allowance, policy)) return { _tag: "Ask", cost: 1 }
  if (now >= allowance.lapsesAt) {
    return { _tag: "Ask", cost: allowance.tokens > 0 ? 0 : batchSize(allowance, policy, now) }
  }
  if (allowance.tokens > 0) return { _tag: "Spend" }
  return shared(allowance, true, allowance.tatMillis, now).remaining === 0
    ? { _tag: "Refuse" }
    : { _tag: "Ask", cost: batchSize(allowance, policy, now) }
}

/** The store's answer to a request for `cost` tokens: passed or not, the TAT after it, its clock then. */
export interface Answer {
  readonly cost: number
  readonly admitted: boolean
  readonly tatMillis: number
  readonly storeMillis: number
}

/**
 * The allowance after the store answered a request sent at `sentAt` (this process's clock; the
 * lapse counts from there, before the store looked). `current` is the allowance as it is now,
 * which concurrent refills of the same limit (an organization's, by several keys) may have moved.
 */
export const refilled = (
  current: Allowance | undefined,
  policy: RateLimit.RateLimitPolicy,
  answer: Answer,
  sentAt: number
): Allowance => {
  const kept = usable(current, policy) ? current : undefined
  const granted = answer.admitted ? answer.cost : 0
  return {
    policy,
    tokens: (kept?.tokens ?? 0) + granted,
    tatMillis: Math.max(kept?.tatMillis ?? answer.tatMillis, answer.tatMillis),
    offsetMillis: answer.storeMillis - sentAt,
    lapsesAt: Math.max(kept?.lapsesAt ?? 0, sentAt + lapseMillis),
    batchAt: granted > 0 || kept === undefined ? sentAt : kept.batchAt,
    spentSince: granted > 0 || kept === undefined ? 0 : kept.spentSince
  }
}

/**
 * Whether the store's refusal of a batch left a token for a single request: then it is worth
 * asking for one at once (the batch was sized from a bucket others have taken from since).
 */
export const oneLeft = (policy: RateLimit.RateLimitPolicy, answer: Answer): boolean =>
  !answer.admitted &&
  answer.cost > 1 &&
  RateLimit.standing(policy, true, answer.tatMillis, answer.storeMillis).remaining >= 1

/**
 * One request admitted from the allowance's tokens (there must be one): the decision as the
 * headers report it, from the shared TAT less the tokens still held here (they are not spent yet),
 * so that a single process reports the shared bucket's figures, within a request.
 */
export const spend = (allowance: Allowance, now: number): [RateLimit.Decision, Allowance] => {
  const tokens = allowance.tokens - 1
  const held = tokens * RateLimit.intervalMillis(allowance.policy)
  return [
    shared(allowance, true, allowance.tatMillis - held, now),
    { ...allowance, tokens, spentSince: allowance.spentSince + 1 }
  ]
}

/** One request refused, with no token here and none in the shared bucket as last seen. */
export const refuse = (allowance: Allowance, now: number): RateLimit.Decision =>
  shared(allowance, false, allowance.tatMillis, now)
