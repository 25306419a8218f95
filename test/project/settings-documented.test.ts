/**
 * Every setting the service reads is documented for its operators, with its default, in a
 * settings table of docs/operators.md. The settings are found in the service's source, not listed
 * here, so a setting added without its row fails this test, and so does a row left behind by a
 * setting that is gone.
 */
import { globSync, readFileSync } from "node:fs"
import { join } from "node:path"
import { assert, describe, it } from "@effect/vitest"

const root = join(import.meta.dirname, "..", "..")

// The service's code. test/ and bench/ are left out on purpose: what they read (the harness's
// TEST_DATABASE_URL and CHROMIUM_PATH, the benchmarks' BENCH_*) steers the tests and the
// benchmarks, never the service, and is documented beside them (README.md, bench/README.md).
const serviceSources = "{app,adapters,core}/**/*.ts"

// Readers of our own that take a setting's name as their first argument. Inside them the name
// reaching Config is a variable, which is allowed in their files only.
const ownReaders: Readonly<Record<string, string>> = { commaList: "adapters/http/pipeline/CommaList.ts" }

/**
 * The text with the contents of comments, string and template literals and regular expressions
 * replaced by spaces, positions kept: searched for code, it finds no mention in prose or samples.
 */
const codeOnly = (text: string): string => {
  const out = text.split("")
  const blank = (from: number, to: number) => out.fill(" ", from, to)
  let previous = "(" // the last significant character, which tells a regular expression from a division
  for (let i = 0; i < text.length; i++) {
    const char = text[i]!
    const next = text[i + 1]
    let end = -1
    if (char === "/" && next === "/") end = text.indexOf("\n", i) === -1 ? text.length : text.indexOf("\n", i)
    else if (char === "/" && next === "*")
      end = text.includes("*/", i + 2) ? text.indexOf("*/", i + 2) + 2 : text.length
    else if (char === '"' || char === "'" || char === "`" || (char === "/" && "(,=:[!&|?{};".includes(previous))) {
      let inClass = false
      for (end = i + 1; end < text.length; end++) {
        if (text[end] === "\\") end++
        else if (char === "/" && text[end] === "[") inClass = true
        else if (char === "/" && text[end] === "]") inClass = false
        else if (text[end] === char && !inClass) break
      }
      blank(i + 1, end)
      i = end
      previous = char
      continue
    }
    if (end !== -1) {
      blank(i, end)
      i = end - 1
    } else if (!/\s/.test(char)) previous = char
  }
  return out.join("")
}

/** The direct arguments of the call whose `(` is at `open`, as [start, end) spans of the text. */
const argumentsAt = (code: string, open: number): ReadonlyArray<readonly [number, number]> => {
  const spans: Array<readonly [number, number]> = []
  let depth = 0
  let start = open + 1
  for (let i = open; i < code.length; i++) {
    const char = code[i]!
    if ("([{".includes(char)) depth++
    else if (")]}".includes(char)) depth--
    if ((char === "," && depth === 1) || depth === 0) {
      if (code.slice(start, i).trim() !== "") spans.push([start, i])
      start = i + 1
    }
    if (depth === 0) break
  }
  return spans
}

/** The string literal that is the whole of a span of code (comments aside), if it is one. */
const literalIn = (text: string, code: string, [start, end]: readonly [number, number]): string | undefined => {
  const literal = /^(\s*)(["'])\s*\2\s*$/.exec(code.slice(start, end))
  if (literal === null) return undefined
  const from = start + literal[1]!.length + 1
  return text.slice(from, code.indexOf(literal[2]!, from))
}

interface Scan {
  readonly names: ReadonlyArray<string>
  /** Calls whose setting's name is not written in them: `Config.Int(name)`. */
  readonly unnamed: ReadonlyArray<string>
}

/**
 * The settings one source file reads: the name handed to one of Effect's Config constructors
 * (PascalCase, `Config.Port("PORT")`, or `Config.schema(schema, "NAME")`: its last string
 * argument), the first argument of one of `readers`, and `process.env.NAME`.
 */
const scanSettings = (text: string, readers: ReadonlyArray<string>): Scan => {
  const code = codeOnly(text)
  const names: Array<string> = []
  const unnamed: Array<string> = []
  const callees = ["Config\\.(?:schema|[A-Z]\\w*)", ...readers]
  for (const call of code.matchAll(new RegExp(`\\b(?:${callees.join("|")})\\s*\\(`, "g"))) {
    const open = call.index + call[0].length - 1
    const spans = argumentsAt(code, open)
    const candidates = call[0].startsWith("Config.") ? spans : spans.slice(0, 1)
    const name = candidates.map((span) => literalIn(text, code, span)).findLast((literal) => literal !== undefined)
    if (name === undefined) unnamed.push(`${text.slice(call.index, spans.at(-1)?.[1] ?? open + 1)})`)
    else names.push(name)
  }
  for (const read of code.matchAll(/\bprocess\.env(?:\.(\w+)|\[([^\]]*)\])/g)) {
    const bracket = read.index + read[0].indexOf("[") + 1
    const name = read[1] ?? literalIn(text, code, [bracket, bracket + read[2]!.length])
    if (name === undefined) unnamed.push(read[0])
    else names.push(name)
  }
  return { names, unnamed }
}

/** The rows of every table in the page whose header starts `| variable | default |`. */
const settingsTables = (page: string): ReadonlyArray<{ readonly variable: string; readonly default: string }> => {
  const rows: Array<{ variable: string; default: string }> = []
  let inTable = false
  for (const line of page.split("\n")) {
    const cells = line.trim().startsWith("|")
      ? line
          .trim()
          .slice(1, -1)
          .split("|")
          .map((cell) => cell.trim())
      : []
    if (cells.length === 0) inTable = false
    else if (cells[0] === "variable" && cells[1] === "default") inTable = true
    else if (inTable && !/^-+$/.test(cells[0]!)) rows.push({ variable: cells[0]!, default: cells[1] ?? "" })
  }
  return rows
}

const service = globSync(serviceSources, { cwd: root }).map((file) => ({
  file,
  scan: scanSettings(readFileSync(join(root, file), "utf8"), Object.keys(ownReaders))
}))
const readBySource = [...new Set(service.flatMap(({ scan }) => scan.names))].sort()
const documented = settingsTables(readFileSync(join(root, "docs", "operators.md"), "utf8"))

describe("settings", () => {
  it("are found where the service reads them, through every kind of reader it uses", () => {
    for (const name of ["PORT", "DATABASE_URL", "AUDIT_RETENTION_DAYS", "CORS_ORIGINS", "LOG_LEVEL", "KEY_BRAND"]) {
      assert.include(readBySource, name)
    }
  })

  it("name themselves where they are read, or are read through a reader the scan knows", () => {
    const unnamed = service.flatMap(({ file, scan }) =>
      Object.values(ownReaders).includes(file) ? [] : scan.unnamed.map((call) => `${file}: ${call}`)
    )
    assert.deepStrictEqual(unnamed, [], "write the name in the call, or add its reader to ownReaders")
  })

  it("each have a row in a settings table of docs/operators.md", () => {
    const rows = new Set(documented.map((row) => row.variable))
    assert.deepStrictEqual(
      readBySource.filter((name) => !rows.has(`\`${name}\``)),
      [],
      "read by the service, missing from docs/operators.md"
    )
  })

  it("each have their default stated: a value, or what happens when unset", () => {
    const undefaulted = documented.filter((row) => !/`[^`]+`|^(unset|none)\b/.test(row.default))
    assert.deepStrictEqual(undefaulted, [])
  })

  it("are documented once, and only if the service reads them", () => {
    const variables = documented.map((row) => row.variable)
    assert.deepStrictEqual(
      variables.filter((variable, index) => variables.indexOf(variable) !== index),
      []
    )
    assert.deepStrictEqual(
      variables.filter((variable) => !readBySource.includes(variable.replaceAll("`", ""))),
      []
    )
  })
})

describe("scanSettings", () => {
  const scan = (text: string) => scanSettings(text, ["commaList"])

  it("reads the name of a constructor, however its call is laid out", () => {
    const text = `
      const a = Config.Port("PORT").pipe(Config.withDefault(3000))
      const b = Config.schema(
        Schema.FiniteFromString.check(Schema.isBetween({ minimum: 1, maximum: 256 })), // "NOT_THIS" (a comment)
        "SYNC_CONCURRENCY"
      )
      const c = Config.Literals(["json", "ON_OFF"], "LOG_FORMAT")
      const d = commaList("CORS_ORIGINS", Schema.Array(entry))
      const e = process.env.DIRECT ?? process.env["BRACKETED"]`
    assert.deepStrictEqual(scan(text), {
      names: ["PORT", "SYNC_CONCURRENCY", "LOG_FORMAT", "CORS_ORIGINS", "DIRECT", "BRACKETED"],
      unnamed: []
    })
  })

  it("ignores names in comments, strings, templates and regular expressions", () => {
    const text = `
      /** Read with Config.String("IN_A_COMMENT"). */
      const sample = "apiKey: process.env.IN_A_STRING, Config.Int(\\"ESCAPED\\")"
      const template = \`process.env.\${variable} Config.Int("IN_A_TEMPLATE")\`
      const pattern = /Config\\.Int\\("IN_A_PATTERN"\\)|'/
      const apostrophe = "the portal's" // Config.Int("AFTER_AN_APOSTROPHE")`
    assert.deepStrictEqual(scan(text), { names: [], unnamed: [] })
  })

  it("reports a constructor whose name comes from elsewhere", () => {
    assert.deepStrictEqual(scan(`const read = (name: string) => Config.Int(name)`).unnamed, ["Config.Int(name)"])
  })
})
