/**
 * What is kept and shown of a receiver's answer to a webhook: a short excerpt, enough to see
 * what the receiver said, never a copy of what it serves. Controls are dropped (line breaks
 * become spaces), secret-shaped text is redacted before the cut (so half a secret is never left at
 * its edge), and at most `excerptCharacters` characters remain. A tenant reads it through the API,
 * the dashboard and the CLI, so an answer from an internal service the operator opened must not
 * become a way to read it. Pure.
 */
import { redactKeys } from "../../access/domain/ApiKey.ts"
import { matchesOf, redactFound } from "../../shared/domain/Redaction.ts"
import { isHidden } from "../../shared/domain/VisibleText.ts"

/** The most characters of an answer kept and shown. */
export const excerptCharacters = 200

const secretShaped = [
  // Signing secrets, bearer and basic credentials, JSON Web Tokens, private keys.
  matchesOf(/whsec_[A-Za-z0-9+/=]+/g),
  matchesOf(/\b(?:bearer|basic)\s+([A-Za-z0-9._~+/=-]+)/gi),
  matchesOf(/\beyJ[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+\.[A-Za-z0-9_-]*/g),
  matchesOf(/-----BEGIN [A-Z ]*PRIVATE KEY-----[\s\S]*?(?:-----END [A-Z ]*PRIVATE KEY-----|$)/g),
  // A value named as a secret (`password=...`, `"token": "..."`), and a URL's password; not
  // the mark a secret cut before left, which would otherwise withhold the whole text.
  matchesOf(
    /(?:pass(?:word|wd)?|pwd|secret|token|api[_-]?key|access[_-]?key|auth(?:orization)?|credentials?|session|cookie)["']?\s*[:=]\s*["']?(?!\[redacted\])([^\s"'&,;}]+)/gi
  ),
  matchesOf(/[a-z][a-z0-9+.-]*:\/\/[^\s:@/]*:(?!\[redacted\]@)([^\s@/]+)@/gi),
  // Any long unbroken run of token characters: keys and hashes have no other shape to rely on.
  matchesOf(/[A-Za-z0-9+/_-]{32,}={0,2}/g)
]

const shown = (text: string): string => {
  let out = ""
  for (const char of text) {
    const code = char.codePointAt(0)!
    if (!isHidden(code)) out += char
    else if (code === 0x09 || code === 0x0a || code === 0x0d || code === 0x2028 || code === 0x2029) out += " "
  }
  return out.replace(/ {2,}/g, " ").trim()
}

/** The excerpt of an answer's body that is recorded and shown. */
export const answerExcerpt = (body: string): string => {
  const redacted = redactFound(redactKeys(shown(body)), secretShaped, "[withheld: an encoded secret]")
  const characters = Array.from(redacted)
  return characters.length <= excerptCharacters ? redacted : `${characters.slice(0, excerptCharacters).join("")}…`
}
