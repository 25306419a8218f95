/**
 * Dashboard sessions verified a moment ago, by the digest of their cookie (SHA-256, as the session
 * store keys them): what lets the per-address allowance (`AddressBudget`), which runs before any
 * session is looked up, count a signed-in user by their session instead. The dashboard's guard
 * notes each session it verifies; an entry vouches for `ttlMillis` after that. Bounded: past
 * `capacity` entries the oldest noted goes. A forged cookie is never in it, so it still costs the
 * database nothing; a session ended meanwhile is found out by the guard, and forgotten.
 */
import { hash } from "node:crypto"
import { Context, Layer } from "effect"

export interface Cache {
  /** Notes that the session with this digest was verified at `nowMillis`. */
  readonly remember: (digest: string, nowMillis: number) => void
  /** Whether the session with this digest was verified recently enough to vouch for a request. */
  readonly vouches: (digest: string, nowMillis: number) => boolean
  readonly forget: (digest: string) => void
}

export const make = ({ capacity = 10_000, ttlMillis = 5 * 60_000 } = {}): Cache => {
  // Insertion order is the order noted: a note is moved to the end, so the first is the oldest.
  const until = new Map<string, number>()
  return {
    remember: (digest, nowMillis) => {
      until.delete(digest)
      if (until.size >= capacity) until.delete(until.keys().next().value!)
      until.set(digest, nowMillis + ttlMillis)
    },
    vouches: (digest, nowMillis) => (until.get(digest) ?? 0) > nowMillis,
    forget: (digest) => void until.delete(digest)
  }
}

/**
 * The server's cache: the dashboard's guard writes it, the pipeline reads it. One per server, from
 * the layer that server is built with: a server that is not given one does not compile, rather
 * than sharing a map with every other server of the process.
 */
export class VerifiedSessions extends Context.Service<VerifiedSessions, Cache>()("adapters/http/VerifiedSessions") {}

/** A fresh cache, for one server. */
export const layer = Layer.sync(VerifiedSessions, () => make())

/** The digest a session token is known by: SHA-256 of its text, in hex. */
export const digestOf = (token: string): string => hash("sha256", token, "hex")

// Both names the dashboard's cookie may have (`dashboard/frame/Security.ts`): `__Secure-` over HTTPS.
const sessionCookie = /(?:^|;\s*)(?:__Secure-)?pr_session=([^;\s]+)/

/** The digest of the session cookie a `Cookie` header carries, if any. */
export const sessionDigest = (cookieHeader: string | undefined): string | undefined => {
  const token = cookieHeader === undefined ? undefined : sessionCookie.exec(cookieHeader)?.[1]
  return token === undefined ? undefined : digestOf(token)
}
