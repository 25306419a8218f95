/**
 * The dashboard's rules as plain data and functions: roles, the shape of its secret tokens, how
 * long invites and sessions live, what a password and an e-mail address must be, and when
 * sign-in attempts are throttled (and which client addresses count as one). No storage, no clock of its own: callers pass the time, so
 * every rule is a pure function with property tests (`test/core/domain/Dashboard.test.ts`).
 */
import { Duration, Schema } from "effect"
import { Base64Url } from "effect/encoding"

/** `admin` manages the organization's keys; `member` reads. */
export const Role = Schema.Literals(["admin", "member"])
export type Role = typeof Role.Type

/** Secret tokens (invites, sessions) carry 256 random bits: 43 base64url characters. */
export const tokenBytes = 32
const tokenPattern = /^[A-Za-z0-9_-]{43}$/

export const tokenFromBytes = (bytes: Uint8Array): string => {
  if (bytes.length !== tokenBytes) throw new RangeError(`a token needs ${tokenBytes} bytes, got ${bytes.length}`)
  return Base64Url.encode(bytes)
}

/** Whether the text can be a token at all; anything else is refused without a lookup. */
export const isWellFormedToken = (text: string): boolean => tokenPattern.test(text)

/** An invite link works once, within this time of its creation. */
export const inviteLifetime = Duration.hours(72)

export interface SessionPolicy {
  /** A session not used for this long is over. */
  readonly idle: Duration.Duration
  /** A session is over this long after sign-in, however busy. */
  readonly absolute: Duration.Duration
  /** Last use is stored at most this often, so that reading pages does not write on each one. */
  readonly touchEvery: Duration.Duration
}

export const sessionPolicy: SessionPolicy = {
  idle: Duration.minutes(30),
  absolute: Duration.hours(12),
  touchEvery: Duration.minutes(1)
}

export type SessionState = "active" | "idle" | "expired"

/** Where a session stands at `now` (epoch milliseconds); the absolute limit wins over idleness. */
export const sessionState = (
  session: { readonly createdAtMillis: number; readonly lastSeenAtMillis: number },
  nowMillis: number,
  policy: SessionPolicy = sessionPolicy
): SessionState => {
  if (nowMillis - session.createdAtMillis >= Duration.toMillis(policy.absolute)) return "expired"
  if (nowMillis - session.lastSeenAtMillis >= Duration.toMillis(policy.idle)) return "idle"
  return "active"
}

/** Whether an active session's last use is old enough to be stored again. */
export const needsTouch = (lastSeenAtMillis: number, nowMillis: number, policy: SessionPolicy = sessionPolicy) =>
  nowMillis - lastSeenAtMillis >= Duration.toMillis(policy.touchEvery)

/** Passwords: 12 to 256 characters; length is what protects a password, not character classes. */
export const passwordLength = { minimum: 12, maximum: 256 } as const

/** Why a password is refused, or undefined when it is acceptable. */
export const passwordProblem = (password: string): string | undefined => {
  const length = Array.from(password).length
  if (length < passwordLength.minimum) return `a password needs at least ${passwordLength.minimum} characters`
  if (length > passwordLength.maximum) return `a password has at most ${passwordLength.maximum} characters`
  return undefined
}

const emailPattern = /^[^\s@]+@[^\s@]+\.[^\s@]+$/

/** An e-mail address as stored and compared: trimmed and lower-cased; undefined if it is not one. */
export const normalizeEmail = (text: string): string | undefined => {
  const email = text.trim().toLowerCase()
  return email.length <= 254 && emailPattern.test(email) ? email : undefined
}

export interface ThrottlePolicy {
  /** Failed sign-ins allowed within the window... */
  readonly failures: number
  /** ...counted over this sliding window. */
  readonly window: Duration.Duration
}

/**
 * Per account and client address: five wrong passwords in 15 minutes lock that account for that
 * address (and no other) for the rest of the window.
 */
export const pairThrottle: ThrottlePolicy = { failures: 5, window: Duration.minutes(15) }
/** Per client address: twenty failures in 15 minutes, across accounts (guessing many e-mails). */
export const addressThrottle: ThrottlePolicy = { failures: 20, window: Duration.minutes(15) }
/**
 * Per account, from every address together: fifty failures in 15 minutes (guessing from many
 * addresses) lock the account, except for the addresses that have signed in to it before, so that
 * nobody can lock its owner out.
 */
export const accountThrottle: ThrottlePolicy = { failures: 50, window: Duration.minutes(15) }

/**
 * The client address as throttling counts it: an IPv6 address by its /64 network, since one
 * customer commonly holds a whole /64 and could otherwise take a fresh address for every attempt;
 * anything else as it is.
 */
export const throttledAddress = (address: string): string => {
  const groups = ipv6Groups(address)
  return groups === undefined ? address : `${groups.slice(0, 4).join(":")}::/64`
}

/** The eight groups of an IPv6 address, without leading zeros; undefined if it is not one. */
const ipv6Groups = (address: string): ReadonlyArray<string> | undefined => {
  const [head = "", tail, ...rest] = (address.split("%")[0] ?? "").toLowerCase().split("::")
  if (rest.length > 0 || (tail === undefined && !head.includes(":"))) return undefined
  const split = (text: string) => (text === "" ? [] : text.split(":"))
  const left = split(head)
  const right = tail === undefined ? [] : split(tail)
  // A dotted IPv4 ending (`::ffff:192.0.2.1`) stands for the last two groups.
  const last = tail === undefined ? left : right
  const dotted = last.at(-1)
  if (dotted?.includes(".")) {
    const bytes = dotted.split(".").map(Number)
    if (bytes.length !== 4 || !bytes.every((byte) => Number.isInteger(byte) && byte >= 0 && byte <= 255)) {
      return undefined
    }
    last.splice(-1, 1, ((bytes[0]! << 8) | bytes[1]!).toString(16), ((bytes[2]! << 8) | bytes[3]!).toString(16))
  }
  const missing = 8 - left.length - right.length
  if (tail === undefined ? missing !== 0 : missing < 1) return undefined
  const groups = [...left, ...Array.from({ length: tail === undefined ? 0 : missing }, () => "0"), ...right]
  return groups.every((group) => /^[0-9a-f]{1,4}$/.test(group))
    ? groups.map((group) => group.replace(/^0+(?=.)/, ""))
    : undefined
}

/** The failures (epoch milliseconds) that still count at `now`. */
export const recentFailures = (failures: ReadonlyArray<number>, nowMillis: number, policy: ThrottlePolicy) =>
  failures.filter((at) => at > nowMillis - Duration.toMillis(policy.window) && at <= nowMillis)

/**
 * Seconds until another attempt is allowed, or 0 when one is allowed now: once `failures`
 * attempts failed within the window, none is tried until the oldest of them leaves it.
 */
export const throttledForSeconds = (
  failures: ReadonlyArray<number>,
  nowMillis: number,
  policy: ThrottlePolicy
): number => {
  const counted = [...recentFailures(failures, nowMillis, policy)].sort((a, b) => b - a)
  if (counted.length < policy.failures) return 0
  const freedAt = counted[policy.failures - 1]! + Duration.toMillis(policy.window)
  return Math.max(1, Math.ceil((freedAt - nowMillis) / 1000))
}

/** Equal texts in time that depends on their length only, for comparing secrets. */
export const constantTimeEqual = (a: string, b: string): boolean => {
  if (a.length !== b.length) return false
  let difference = 0
  for (let i = 0; i < a.length; i++) difference |= a.charCodeAt(i) ^ b.charCodeAt(i)
  return difference === 0
}
