/**
 * What NIST SP 800-63B asks of a new password beyond its length (`Dashboard.ts`): it is compared
 * as Unicode NFKC (so that a full-width or composed spelling is the same password), and it is not
 * one that attackers try first: a listed common or breached password, in any case, nor one of
 * those repeated (`passwordpassword`), nor a single character repeated, nor a sequence (`123456789012`,
 * `abcdefghijkl`, `qwertyuiop` and the like, in two runs at most). The list itself is a port
 * (`CommonPasswords`). Depends on effect alone.
 */
import { Effect, Redacted } from "effect"

/** The password as it is hashed and compared: NFKC, so every spelling of it is one password. */
export const normalizePassword = (password: string) => password.normalize("NFKC")

/**
 * Whether the typed password is the stored one, by `verify`: as NFKC, the form passwords are
 * hashed in since it was adopted; a password set before, with a character NFKC changes, matches
 * as typed. Only such input costs a second hash.
 */
export const verifyTyped = <E, R>(
  verify: (password: Redacted.Redacted<string>) => Effect.Effect<boolean, E, R>,
  password: Redacted.Redacted<string>
) => {
  const typed = Redacted.value(password)
  const normalized = normalizePassword(typed)
  return Effect.flatMap(verify(Redacted.make(normalized)), (matches) =>
    matches || normalized === typed ? Effect.succeed(matches) : verify(password)
  )
}

/** The shortest text whose repetition the password is (the password itself when none is). */
export const repeatedUnit = (text: string): string => {
  const characters = Array.from(text)
  for (let size = 1; size <= characters.length / 2; size++) {
    if (characters.length % size !== 0) continue
    const unit = characters.slice(0, size).join("")
    if (unit.repeat(characters.length / size) === text) return unit
  }
  return text
}

/**
 * The orders guessers walk, forwards or backwards, one step at a time: digits and the alphabet
 * (the digits round again after 9: `789012`), and the rows of a QWERTY, AZERTY or QWERTZ keyboard.
 */
const orders: ReadonlyArray<{ readonly characters: string; readonly cyclic: boolean }> = [
  { characters: "0123456789", cyclic: true },
  { characters: "abcdefghijklmnopqrstuvwxyz", cyclic: false },
  ...[
    "1234567890-=",
    "qwertyuiop[]",
    "asdfghjkl;'",
    "zxcvbnm,./",
    "azertyuiop",
    "qsdfghjklm",
    "wxcvbn",
    "qwertzuiop",
    "yxcvbnm"
  ].map((row) => ({ characters: row, cyclic: false }))
]

/** Whether `next` is one step (-1, 0 or +1, as `step` says) after `previous` in `order`. */
const follows = (order: (typeof orders)[number], previous: string, next: string, step: number) => {
  const at = order.characters.indexOf(previous)
  if (at < 0 || order.characters.indexOf(next) < 0) return false
  const size = order.characters.length
  const target = at + step
  if (!order.cyclic && (target < 0 || target >= size)) return false
  return order.characters[(target + size) % size] === next
}

/**
 * How many runs the text is made of, a run being characters that each repeat the one before or
 * take one step along one of the `orders`, in the same direction throughout: `123456789012` is one,
 * `abcdef123456` two, a chosen password about as many as it has characters. Greedy, left to right:
 * linear in the text.
 */
export const predictableRuns = (text: string): number => {
  const characters = Array.from(text)
  const everyWay = orders.flatMap((order) => [1, -1].map((step) => ({ order, step })))
  let runs = 0
  // The orders and directions the current run may be walking (several at first: `nm` is a step
  // along the alphabet backwards and along a keyboard row forwards); a repeat walks none.
  let ways: ReadonlyArray<(typeof everyWay)[number]> | "repeat" | undefined
  for (let i = 0; i < characters.length; i++) {
    const previous = characters[i - 1]
    const next = characters[i]!
    if (previous !== undefined && ways !== undefined) {
      if (ways === "repeat") {
        if (next === previous) continue
      } else {
        const still = ways.filter(({ order, step }) => follows(order, previous, next, step))
        if (still.length > 0) {
          ways = still
          continue
        }
      }
    } else if (previous !== undefined) {
      // The run's second character sets what it may be.
      const possible = everyWay.filter(({ order, step }) => follows(order, previous, next, step))
      if (next === previous || possible.length > 0) {
        ways = next === previous ? "repeat" : possible
        continue
      }
    }
    runs += 1
    ways = undefined
  }
  return runs
}

/** Why the (normalized) password is refused as guessable, or undefined; `isListed` takes lower case. */
export const guessableProblem = (password: string, isListed: (lowerCase: string) => boolean): string | undefined => {
  const lower = password.toLowerCase()
  const unit = repeatedUnit(lower)
  if (Array.from(unit).length === 1) return "a password of one character repeated is guessed at once"
  if (isListed(lower) || isListed(unit)) return "that password is on a list of common passwords: choose another"
  if (predictableRuns(unit) <= 2) return "a sequence such as 123456789012 or abcdefghijkl is guessed at once"
  return undefined
}
