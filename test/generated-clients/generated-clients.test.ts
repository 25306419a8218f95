/**
 * Clients that third-party generators make from the OpenAPI document type the contract exactly:
 * openapi-typescript, @hey-api/openapi-ts and orval each generate from the document into a
 * temporary project, and a small usage file per generator (`usage/`) must compile against what
 * it made with TypeScript 5 (this workspace's, as the generators need it). The usage files hold
 * the types to their precise form, so a parameter typed as text or `unknown`, a resource written
 * inline instead of by name, or an error code typed as any string fails the compile.
 */
import { execFile } from "node:child_process"
import { cp, mkdtemp, readdir, readFile, rm, writeFile } from "node:fs/promises"
import { createRequire } from "node:module"
import { tmpdir } from "node:os"
import { dirname, join } from "node:path"
import { promisify } from "node:util"
import { afterAll, assert, beforeAll, describe, it } from "@effect/vitest"
import { OpenApi } from "effect/http-api"
import { Api } from "../../core/api/Api.ts"

const run = promisify(execFile)
const workspace = import.meta.dirname
const resolve = createRequire(join(workspace, "package.json")).resolve
const packageDir = (name: string) => dirname(resolve(`${name}/package.json`))

let project = ""

/** Runs a Node.js script of a generator in the temporary project, failing with what it printed. */
const node = async (args: ReadonlyArray<string>) => {
  try {
    await run(process.execPath, [...args], { cwd: project, timeout: 60_000 })
  } catch (error) {
    const { stdout, stderr } = error as { stdout?: string; stderr?: string }
    throw new Error(`node ${args.join(" ")} failed:\n${stdout ?? ""}${stderr ?? ""}`)
  }
}

beforeAll(async () => {
  project = await mkdtemp(join(tmpdir(), "pr-generated-clients-"))
  await writeFile(join(project, "openapi.json"), JSON.stringify(OpenApi.fromApi(Api)))
  await writeFile(
    join(project, "tsconfig.json"),
    JSON.stringify({
      compilerOptions: {
        target: "es2022",
        lib: ["es2022", "dom", "dom.iterable"],
        module: "esnext",
        moduleResolution: "bundler",
        allowImportingTsExtensions: true,
        strict: true,
        noEmit: true,
        skipLibCheck: true,
        types: []
      },
      include: ["**/*.ts"]
    })
  )
  // The usage files without their first line, which keeps the project's own check off them.
  await cp(join(workspace, "usage"), join(project, "usage"), { recursive: true })
  for (const file of await readdir(join(project, "usage"))) {
    const path = join(project, "usage", file)
    const text = await readFile(path, "utf8")
    await writeFile(path, text.replace(/^\/\/ @ts-nocheck.*\n/, ""))
  }
}, 60_000)

afterAll(async () => {
  if (project !== "") await rm(project, { recursive: true, force: true })
})

describe("clients generated from the OpenAPI document", () => {
  it("type the contract exactly with openapi-typescript, @hey-api/openapi-ts and orval", async () => {
    const openapiTypescript = packageDir("openapi-typescript")
    await node([join(openapiTypescript, "bin", "cli.js"), "openapi.json", "-o", "openapi-typescript/schema.ts"])
    const heyApi = packageDir("@hey-api/openapi-ts")
    await node([
      "--import",
      join(workspace, "typescript5.ts"),
      join(heyApi, "dist", "run.mjs"),
      "-i",
      "openapi.json",
      "-o",
      "hey-api"
    ])
    const orval = packageDir("orval")
    const orvalArgs = ["-i", "openapi.json", "-o", "orval/api.ts", "--client", "fetch", "--mode", "single"]
    await node([join(orval, "dist", "bin", "orval.mjs"), ...orvalArgs, "--fail-on-warnings"])

    const typescript = packageDir("typescript")
    const { version } = JSON.parse(await readFile(join(typescript, "package.json"), "utf8")) as { version: string }
    assert.match(version, /^5\./, "the workspace's TypeScript, which the generators are made for")
    const tsc = join(typescript, "bin", "tsc")
    const compiled = await run(process.execPath, [tsc, "-p", "tsconfig.json"], { cwd: project }).then(
      () => "",
      (error: { stdout?: string }) => error.stdout ?? String(error)
    )
    assert.strictEqual(compiled, "", `the usage files do not compile against the generated clients:\n${compiled}`)
  }, 120_000)
})
