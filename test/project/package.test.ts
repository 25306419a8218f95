/**
 * The library as an outside project gets it: `npm pack` of `core/` installs with `effect` alone,
 * imports from plain Node (which refuses to strip types inside `node_modules`, so the package
 * ships JavaScript and declarations), and type-checks from its declarations.
 */
import { execFile } from "node:child_process"
import { mkdir, mkdtemp, readFile, rm, symlink, writeFile } from "node:fs/promises"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { promisify } from "node:util"
import { afterAll, assert, beforeAll, describe, it } from "@effect/vitest"

const run = promisify(execFile)
const root = join(import.meta.dirname, "..", "..")
let consumer = ""

beforeAll(async () => {
  consumer = await mkdtemp(join(tmpdir(), "pr-consumer-"))
  const { stdout } = await run("npm", ["pack", "-w", "partner-receivables", "--pack-destination", consumer, "--json"], {
    cwd: root
  })
  const [packed] = JSON.parse(stdout.slice(stdout.indexOf("["))) as Array<{ filename: string }>
  const installed = join(consumer, "node_modules", "partner-receivables")
  await mkdir(installed, { recursive: true })
  await run("tar", ["-xzf", join(consumer, packed!.filename), "-C", installed, "--strip-components=1"])
  // Its one dependency, as npm would install it beside it.
  await symlink(join(root, "node_modules", "effect"), join(consumer, "node_modules", "effect"), "dir")
}, 120_000)

afterAll(() => rm(consumer, { recursive: true, force: true }))

describe("the packed library", () => {
  it("depends on effect alone and ships JavaScript with declarations, no sources", async () => {
    const manifest = JSON.parse(
      await readFile(join(consumer, "node_modules", "partner-receivables", "package.json"), "utf8")
    ) as { dependencies: Record<string, string>; exports: Record<string, { types: string; default: string }> }
    assert.deepStrictEqual(Object.keys(manifest.dependencies), ["effect"])
    assert.deepStrictEqual(manifest.exports["."], { types: "./dist/mod.d.ts", default: "./dist/mod.js" })
    const { stdout } = await run("tar", ["-tzf", join(consumer, "partner-receivables-0.1.0.tgz")])
    const files = stdout.trim().split("\n")
    assert.isTrue(
      files.every((file) => /^package\/(package\.json|dist\/.+\.(js|d\.ts))$/.test(file)),
      files.join(" ")
    )
  })

  it("imports from plain Node and works", async () => {
    await writeFile(
      join(consumer, "index.mjs"),
      `import { Status, ApiKey } from "partner-receivables"
console.log(JSON.stringify([Status.normalizeStatus("Partly Paid"), ApiKey.redactKeys("x=pr_live_abc")]))`
    )
    const { stdout } = await run(process.execPath, ["index.mjs"], { cwd: consumer })
    assert.deepStrictEqual(JSON.parse(stdout), ["APPROVED", "x=pr_live_[redacted]"])
  })

  it("type-checks a consumer against its declarations", async () => {
    await writeFile(
      join(consumer, "consumer.ts"),
      `import { Status } from "partner-receivables"
const status: Status.Status = Status.normalizeStatus("Paid in full")
// @ts-expect-error: a status is one of six
const wrong: Status.Status = "MAYBE"
export { status, wrong }
`
    )
    await writeFile(
      join(consumer, "tsconfig.json"),
      JSON.stringify({
        compilerOptions: { module: "nodenext", moduleResolution: "nodenext", strict: true, noEmit: true, types: [] },
        files: ["consumer.ts"]
      })
    )
    await writeFile(join(consumer, "package.json"), JSON.stringify({ type: "module", private: true }))
    const tsc = join(root, "node_modules", "typescript", "bin", "tsc")
    const result = await run(process.execPath, [tsc, "-p", consumer]).then(
      () => "",
      (error: { stdout?: string }) => error.stdout ?? String(error)
    )
    assert.strictEqual(result, "")
  })
})
