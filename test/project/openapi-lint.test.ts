/**
 * The OpenAPI document passes the linters API consumers run, with their stock rulesets and no
 * exception: Redocly's `recommended` (`redocly.yaml`) and Spectral's `spectral:oas`
 * (`.spectral.yaml`). Any error or warning fails, and is printed.
 */
import { execFile } from "node:child_process"
import { mkdtemp, rm, writeFile } from "node:fs/promises"
import { createRequire } from "node:module"
import { tmpdir } from "node:os"
import { dirname, join } from "node:path"
import { promisify } from "node:util"
import { afterAll, assert, beforeAll, describe, it } from "@effect/vitest"
import { OpenApi } from "effect/http-api"
import { Api } from "../../core/api/Api.ts"

const run = promisify(execFile)
const root = join(import.meta.dirname, "..", "..")
const resolve = createRequire(join(root, "package.json")).resolve

/** The linter's script (`bin` of its package) run by this Node.js; what it printed, whatever its exit code. */
const lint = async (name: string, bin: string, args: ReadonlyArray<string>) => {
  const script = join(dirname(resolve(`${name}/package.json`)), bin)
  const env = { ...process.env, REDOCLY_TELEMETRY: "off", REDOCLY_SUPPRESS_UPDATE_NOTICE: "true" }
  return run(process.execPath, [script, ...args], { cwd: root, env, timeout: 60_000 }).then(
    ({ stdout }) => stdout,
    (error: { stdout?: string; stderr?: string }) => {
      if (error.stdout === undefined || error.stdout === "") throw new Error(`${name} failed: ${error.stderr}`)
      return error.stdout
    }
  )
}

let directory = ""
let document = ""

beforeAll(async () => {
  directory = await mkdtemp(join(tmpdir(), "pr-openapi-lint-"))
  document = join(directory, "openapi.json")
  await writeFile(document, JSON.stringify(OpenApi.fromApi(Api), null, 2))
})

afterAll(async () => {
  if (directory !== "") await rm(directory, { recursive: true, force: true })
})

interface RedoclyProblem {
  readonly ruleId: string
  readonly severity: string
  readonly message: string
  readonly location: ReadonlyArray<{ readonly pointer: string }>
}

interface SpectralResult {
  readonly code: string
  readonly severity: number
  readonly message: string
  readonly path: ReadonlyArray<string | number>
}

const spectralSeverities = ["error", "warning", "info", "hint"]

describe("the OpenAPI document", () => {
  it("has no error and no warning under Redocly's recommended rules", async () => {
    const output = await lint("@redocly/cli", "bin/cli.js", [
      "lint",
      document,
      "--config",
      join(root, "redocly.yaml"),
      "--format",
      "json"
    ])
    const report = JSON.parse(output) as {
      readonly totals: { readonly errors: number; readonly warnings: number }
      readonly problems: ReadonlyArray<RedoclyProblem>
    }
    const findings = report.problems.map(
      (problem) =>
        `${problem.severity} ${problem.ruleId} at ${problem.location.map((at) => at.pointer).join(", ")}: ${problem.message}`
    )
    assert.deepStrictEqual(findings, [])
    assert.deepStrictEqual(
      { errors: report.totals.errors, warnings: report.totals.warnings },
      { errors: 0, warnings: 0 }
    )
  }, 60_000)

  it("has no finding under Spectral's spectral:oas rules", async () => {
    const output = await lint("@stoplight/spectral-cli", "dist/index.js", [
      "lint",
      document,
      "--ruleset",
      join(root, ".spectral.yaml"),
      "--format",
      "json",
      "--quiet"
    ])
    const results = JSON.parse(output) as ReadonlyArray<SpectralResult>
    const findings = results.map(
      (result) => `${spectralSeverities[result.severity]} ${result.code} at ${result.path.join(".")}: ${result.message}`
    )
    assert.deepStrictEqual(findings, [])
  }, 60_000)
})
