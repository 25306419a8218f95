/**
 * The six normalized receivable statuses and the mapping from a portal's free status text to one
 * of them: the connector's mapping, then the researched vocabulary (`StatusVocabulary.ts`), then
 * conservative word rules. `explainStatus` says which step decided and why. The policy behind the
 * rules is `docs/status-policy.md`. Pure functions only: depends on `effect` and nothing else.
 */
import { Schema } from "effect"
import { decideStatusRule, type StatusRule, statusRules, type WordRead } from "./StatusRules.ts"
import { statusVocabulary, type VocabularyEntry } from "./StatusVocabulary.ts"

export const statuses = ["PENDING", "APPROVED", "PAID", "SOLD", "DISPUTED", "ACKNOWLEDGED"] as const

export const Status = Schema.Literals(statuses).annotate({ description: "Normalized receivable status" })
export type Status = typeof Status.Type

// British spellings and old forms, rewritten inside words too so that joined words
// ("paymentAuthorised") meet the same key. Literal alternatives only: linear, no backtracking.
const spellings: Readonly<Record<string, string>> = {
  AUTHORIS: "AUTHORIZ",
  FINALIS: "FINALIZ",
  ACKNOWLEDGEMENT: "ACKNOWLEDGMENT",
  PAYED: "PAID"
}
const spelling = /AUTHORIS|FINALIS|ACKNOWLEDGEMENT|PAYED|CANCELL+/g
const misspelt = /AUTHORIS|FINALIS|ACKNOWLEDGEMENT|PAYED|CANCELL/
const respell = (match: string) => spellings[match] ?? "CANCEL"
const nonAscii = /[^ -~\t\n\r]/
const asciiSeparators = /[^A-Z0-9]+/g
const marks = /\p{M}+/gu
const separators = /[^\p{L}\p{N}]+/gu
// Punctuation that changes the reading ("Paid?", "Is Paid = N", "Paid: no", "0% paid") is kept, as
// a token of its own; everything else that is not a letter or a digit separates words.
const meaningful = /[?=:%]/
// Anything but printable ASCII other than "%", ":", "=" and "?": one class, as cheap as `nonAscii`.
const unusual = /[^ -$&-9;<>@-~\t\n\r]/
const meaningfulAscii = /[^A-Z0-9?=:%]+|[?=:%]/g
const meaningfulUnicode = /[^\p{L}\p{N}?=:%]+|[?=:%]/gu
const asToken = (match: string) => (meaningful.test(match) ? ` ${match} ` : " ")
const spaceRuns = / {2,}/g

/**
 * The canonical form used for every comparison: accents dropped, upper case, "?", "=", ":" and "%"
 * kept as tokens of their own, anything else that is not a letter or a digit read as a single
 * space, trimmed, British spellings made American
 * ("Authorised" and "AUTHORIZED" meet). Idempotent.
 */
export const canonicalStatusText = (text: string): string => respelt(spacedUpper(text))

// The canonical form before British spellings are rewritten. `normalizeStatus` looks this up first
// and rewrites spellings only on a miss, which keeps the common case to two regular expressions.
const spacedUpper = (text: string) => {
  const upper = text.toUpperCase()
  // Most texts are plain ASCII without kept punctuation: one test and one replace. Unicode classes
  // cost several times more than ASCII ones, so only text with accents or other scripts pays for
  // them ("Encaissée", "Déposée"), and only text with kept punctuation pays for keeping it.
  if (!unusual.test(upper)) return upper.replace(asciiSeparators, " ").trim()
  const ascii = !nonAscii.test(upper)
  const unaccented = ascii
    ? upper
    : upper.normalize("NFD").replace(marks, "").toUpperCase().normalize("NFD").replace(marks, "")
  const spaced = !meaningful.test(unaccented)
    ? unaccented.replace(ascii ? asciiSeparators : separators, " ")
    : unaccented.replace(ascii ? meaningfulAscii : meaningfulUnicode, asToken).replace(spaceRuns, " ")
  return spaced.trim()
}
const respelt = (spaced: string) => (misspelt.test(spaced) ? spaced.replace(spelling, respell) : spaced)

/**
 * The key under which tables are looked up: the canonical form without its spaces, so that every
 * way of joining words ("PartiallyPaid", "partially_paid", "Partially Paid") meets one entry.
 */
const compactKey = (canonical: string) => canonical.replace(spaces, "")
const spaces = / /g

/** A connector's own mapping, keyed by canonical portal text. Build it with `makeStatusMapping`. */
export type StatusMapping = ReadonlyMap<string, Status>

/**
 * An integration's own status wording, as its configuration writes it: portal text to one of the
 * six statuses. Checked when the integration is created (a value outside the six names the
 * field); applied before the connector's own mapping and the default table.
 */
export const StatusWording = Schema.Record(Schema.String.check(Schema.isNonEmpty()), Status).annotate({
  description: "The portal's status texts mapped to statuses, applied before the default table"
})

/** Compiles a connector's mapping once, so that its keys match in any casing or spacing. */
export const makeStatusMapping = (entries: Readonly<Record<string, Status>>): StatusMapping =>
  new Map(Object.entries(entries).map(([text, status]) => [canonicalStatusText(text), status]))

// A connector's mapping seen by compact key, built once per mapping on first use.
const compactViews = new WeakMap<StatusMapping, ReadonlyMap<string, Status>>()
const compactView = (mapping: StatusMapping) => {
  let view = compactViews.get(mapping)
  if (view === undefined) {
    view = new Map([...mapping].map(([text, status]) => [compactKey(canonicalStatusText(text)), status]))
    compactViews.set(mapping, view)
  }
  return view
}
const fromMapping = (mapping: StatusMapping, canonical: string, key: string) =>
  mapping.get(canonical) ?? compactView(mapping).get(key)

// The default table: every researched wording, plus the six labels themselves.
// Keyed by compact key; `spacedTable` holds the same answers by canonical text, which most portal
// texts already are, so the common case needs no compact key.
const tableEntries = new Map<string, VocabularyEntry>()
const spacedTable = new Map<string, Status>(statuses.map((status) => [status, status]))
for (const entry of statusVocabulary) {
  const canonical = canonicalStatusText(entry.text)
  const key = compactKey(canonical)
  if (!tableEntries.has(key)) tableEntries.set(key, entry)
  if (!spacedTable.has(canonical)) spacedTable.set(canonical, tableEntries.get(key)!.status)
}
const table = new Map<string, Status>([
  ...[...tableEntries].map(([key, entry]) => [key, entry.status] as const),
  ...statuses.map((status) => [status, status] as const)
])

/**
 * The portal texts each status stands for in the default table, derived from the researched
 * vocabulary (canonical form). Kept for callers that list or test the table.
 */
export const defaultStatusTable: Readonly<Record<Exclude<Status, "ACKNOWLEDGED">, ReadonlyArray<string>>> = {
  PENDING: textsOf("PENDING"),
  APPROVED: textsOf("APPROVED"),
  PAID: textsOf("PAID"),
  SOLD: textsOf("SOLD"),
  DISPUTED: textsOf("DISPUTED")
}
function textsOf(status: Status): ReadonlyArray<string> {
  const texts = new Set<string>()
  for (const entry of statusVocabulary) if (entry.status === status) texts.add(canonicalStatusText(entry.text))
  return [...texts]
}

export { type StatusRule, statusRules } from "./StatusRules.ts"

/** One attempt at the connector's mapping and the default table, for one spelling of the text. */
const lookUp = (canonical: string, key: string, connectorMapping: StatusMapping | undefined) =>
  (connectorMapping === undefined ? undefined : fromMapping(connectorMapping, canonical, key)) ?? table.get(key)

/**
 * Maps a portal's status text to one of the six statuses: the connector's own mapping first, then
 * the default table, then the conservative rules; anything else is `ACKNOWLEDGED`. It runs once
 * per document of every sync, so it allocates nothing beyond the canonical text, and rewrites
 * spellings only when the text as written is in no table. Measured on the spec's table strings
 * (`bench/status/README.md`): 113 to 119 ns a call, against 124 to 129 ns for the first
 * normalizer; `explainStatus` gives the same answer (a property test holds them equal).
 */
export const normalizeStatus = (portalStatus: string, connectorMapping?: StatusMapping): Status => {
  const spaced = spacedUpper(portalStatus)
  // Most texts are already canonical and have one word or a table wording: answer those without
  // building a compact key. The connector's mapping always comes before the default table.
  const simple = !spaced.includes(" ")
  const mapped =
    connectorMapping === undefined
      ? undefined
      : fromMapping(connectorMapping, spaced, simple ? spaced : compactKey(spaced))
  if (mapped !== undefined) return mapped
  const direct = spacedTable.get(spaced) ?? table.get(simple ? spaced : compactKey(spaced))
  if (direct !== undefined) return direct
  const canonical = respelt(spaced)
  const key = compactKey(canonical)
  const respeltFound = canonical === spaced ? undefined : lookUp(canonical, key, connectorMapping)
  if (respeltFound !== undefined) return respeltFound
  return byRules(canonical)
}

// The rules' answers by canonical text. A portal repeats a handful of wordings across thousands of
// documents, and reading a text by the rules costs some microseconds, so answers are remembered;
// the bound keeps hostile or endlessly varied texts from growing the map.
const ruleAnswers = new Map<string, Status>()
const rememberedAnswers = 4_096
const byRules = (canonical: string): Status => {
  const remembered = ruleAnswers.get(canonical)
  if (remembered !== undefined) return remembered
  const rule = decideStatusRule(canonical).rule
  const status = rule < 0 ? "ACKNOWLEDGED" : statusRules[rule]!.status
  if (ruleAnswers.size >= rememberedAnswers) ruleAnswers.clear()
  ruleAnswers.set(canonical, status)
  return status
}

/** Which step decided a status, and why, in plain words. */
export type StatusExplanation = {
  readonly text: string
  readonly canonical: string
  readonly status: Status
  readonly reason: string
} & (
  | { readonly step: "connector" }
  | { readonly step: "table"; readonly entry: VocabularyEntry }
  | { readonly step: "label" }
  | {
      readonly step: "rule"
      readonly rule: StatusRule["name"]
      readonly words: ReadonlyArray<WordRead>
      /** For APPROVED, PAID and SOLD: the word the status rests on (its negation takes it away). */
      readonly decidedBy: WordRead | undefined
    }
  | { readonly step: "unknown"; readonly words: ReadonlyArray<WordRead> }
)

const wordList = (words: ReadonlyArray<WordRead>) =>
  words.map((read) => (read.reading === "asserted" ? read.word : `${read.word} (${read.reading})`)).join(", ")

/** `normalizeStatus` with its reasons: the same answer, and which step gave it and why. */
export const explainStatus = (portalStatus: string, connectorMapping?: StatusMapping): StatusExplanation => {
  const canonical = canonicalStatusText(portalStatus)
  const key = compactKey(canonical)
  const base = { text: portalStatus, canonical }
  const mapped = connectorMapping === undefined ? undefined : fromMapping(connectorMapping, canonical, key)
  if (mapped !== undefined)
    return { ...base, status: mapped, step: "connector", reason: `the connector maps "${canonical}" to ${mapped}` }
  const entry = tableEntries.get(key)
  if (entry !== undefined)
    return {
      ...base,
      status: entry.status,
      step: "table",
      entry,
      reason:
        `${entry.product} writes "${entry.text}" (${entry.source})` +
        (entry.reason === undefined ? "" : `; ${entry.reason}`)
    }
  const label = table.get(key)
  if (label !== undefined) return { ...base, status: label, step: "label", reason: `it is the label ${label} itself` }
  const { rule: index, words, decidedBy } = decideStatusRule(canonical)
  if (index < 0)
    return {
      ...base,
      status: "ACKNOWLEDGED",
      step: "unknown",
      words,
      reason:
        words.length === 0
          ? "no known word in it, so it is kept as ACKNOWLEDGED"
          : `its words (${wordList(words)}) decide nothing, so it is kept as ACKNOWLEDGED`
    }
  const rule = statusRules[index]!
  return {
    ...base,
    status: rule.status,
    step: "rule",
    rule: rule.name,
    words,
    decidedBy,
    reason:
      `rule "${rule.name}": ${rule.why} (words read: ${wordList(words)})` +
      (decidedBy === undefined ? "" : `; it rests on ${decidedBy.word}`)
  }
}
