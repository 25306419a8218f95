/**
 * Scores status normalization on the labelled set (`bench/status/cases.ts`), for the development
 * and the test half: accuracy, precision and recall per status, and the confusion matrix. Three
 * normalizers: `normalizeStatus` as shipped; the same with a table built from development-half
 * products only (how it does on products nobody researched); and the rules alone. Then, apart, the
 * adversarial set (`bench/status/adversarial.ts`): false APPROVED, PAID and SOLD first.
 * Run: `node bench/status/run.ts`.
 */
import { canonicalStatusText, normalizeStatus, type Status, statuses } from "../../core/receivables/domain/Status.ts"
import { decideStatusRule, statusRules } from "../../core/receivables/domain/StatusRules.ts"
import { statusVocabulary } from "../../core/receivables/domain/StatusVocabulary.ts"
import { adversarialCases } from "./adversarial.ts"
import { halfOf, type StatusCase, statusCases } from "./cases.ts"

const key = (text: string) => canonicalStatusText(text).replaceAll(" ", "")
const byRules = (text: string): Status => {
  const rule = decideStatusRule(canonicalStatusText(text)).rule
  return rule < 0 ? "ACKNOWLEDGED" : statusRules[rule]!.status
}
const developmentTable = new Map<string, Status>()
for (const entry of statusVocabulary)
  if (entry.product === "Partner Receivables API" || halfOf(entry.product) === "development")
    if (!developmentTable.has(key(entry.text))) developmentTable.set(key(entry.text), entry.status)

const normalizers: ReadonlyArray<readonly [string, (text: string) => Status]> = [
  ["normalizeStatus", (text) => normalizeStatus(text)],
  ["table of development products only, then rules", (text) => developmentTable.get(key(text)) ?? byRules(text)],
  ["rules only", byRules]
]

const percent = (part: number, whole: number) => (whole === 0 ? "  -  " : `${((100 * part) / whole).toFixed(1)}%`)

const report = (name: string, cases: ReadonlyArray<StatusCase>, normalize: (text: string) => Status) => {
  const confusion = new Map<string, number>()
  let right = 0
  const misses: Array<string> = []
  for (const c of cases) {
    const got = normalize(c.text)
    confusion.set(`${c.expected}>${got}`, (confusion.get(`${c.expected}>${got}`) ?? 0) + 1)
    if (got === c.expected) right += 1
    else misses.push(`    ${c.product}: "${c.text}" expected ${c.expected}, got ${got}`)
  }
  const count = (expected: Status | undefined, got: Status | undefined) =>
    [...confusion].reduce((sum, [k, n]) => {
      const [e, g] = k.split(">")
      return sum + ((expected === undefined || e === expected) && (got === undefined || g === got) ? n : 0)
    }, 0)
  console.log(`  ${name}: accuracy ${percent(right, cases.length)} (${right}/${cases.length})`)
  console.log(`    ${"status".padEnd(13)} precision  recall`)
  for (const s of statuses)
    console.log(
      `    ${s.padEnd(13)} ${percent(count(s, s), count(undefined, s)).padStart(9)} ${percent(count(s, s), count(s, undefined)).padStart(7)}`
    )
  console.log(`    confusion (rows expected, columns got): ${statuses.map((s) => s.slice(0, 4)).join(" ")}`)
  for (const e of statuses)
    console.log(`    ${e.padEnd(13)} ${statuses.map((g) => String(count(e, g)).padStart(4)).join(" ")}`)
  if (misses.length > 0)
    console.log(
      `    misses:\n${misses.slice(0, 25).join("\n")}${misses.length > 25 ? `\n    ... ${misses.length - 25} more` : ""}`
    )
}

for (const half of ["development", "test"] as const) {
  const cases = statusCases.filter((c) => halfOf(c.product) === half)
  const products = new Set(cases.map((c) => c.product)).size
  console.log(`\n${half} half: ${cases.length} cases from ${products} products`)
  for (const [name, normalize] of normalizers) report(name, cases, normalize)
}

// The adversarial set is no sample of real wordings: it is scored apart, and what matters on it is
// that no text becomes a money status it does not say.
const money: ReadonlyArray<Status> = ["APPROVED", "PAID", "SOLD"]
console.log(
  `\nadversarial set: ${adversarialCases.length} texts in ${new Set(adversarialCases.map((c) => c.group)).size} groups`
)
for (const [name, normalize] of normalizers) {
  const wrong = adversarialCases.flatMap((c) => {
    const got = normalize(c.text)
    return got === c.expected ? [] : [{ ...c, got }]
  })
  const falseMoney = money.map((status) => `${status} ${wrong.filter((c) => c.got === status).length}`)
  console.log(
    `  ${name}: false ${falseMoney.join(", ")}; accuracy ${percent(adversarialCases.length - wrong.length, adversarialCases.length)} (${adversarialCases.length - wrong.length}/${adversarialCases.length})`
  )
  for (const c of wrong)
    console.log(
      `    ${money.includes(c.got) ? "FALSE " : ""}${c.group}: "${c.text}" expected ${c.expected}, got ${c.got}`
    )
}
