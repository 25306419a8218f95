/**
 * What NIST SP 800-63B asks of a new password beyond its length (`Dashboard.ts`): it is compared
 * as Unicode NFKC (so that a full-width or composed spelling is the same password), and it is not
 * one that attackers try first: a listed common or breached password, in any case, nor one of
 * those repeated (`passwordpassword`), nor a single character repeated. The list itself is a port
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

/** Why the (normalized) password is refused as guessable, or undefined; `isListed` takes lower case. */
export const guessableProblem = (password: string, isListed: (lowerCase: string) => boolean): string | undefined => {
  const lower = password.toLowerCase()
  const unit = repeatedUnit(lower)
  if (Array.from(unit).length === 1) return "a password of one character repeated is guessed at once"
  if (isListed(lower) || isListed(unit)) return "that password is on a list of common passwords: choose another"
  return undefined
}
