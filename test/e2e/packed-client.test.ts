/**
 * Both packages as an outside project gets them: `partner-receivables-client` and
 * `partner-receivables` packed, installed from their tarballs into a new project, and run by plain
 * Node (no type stripping) against the running service: a full load and an incremental sync on
 * each feed leave the consumer's copy equal to the service's, on this Node and on the machine's
 * own (Node 20 on a fresh machine); the Effect flavour loads and reads too.
 */
import { execFile } from "node:child_process"
import { existsSync } from "node:fs"
import { copyFile, mkdir, mkdtemp, readFile, rm, writeFile } from "node:fs/promises"
import { tmpdir } from "node:os"
import { delimiter, join } from "node:path"
import { promisify } from "node:util"
import { afterAll, assert, beforeAll, layer } from "@effect/vitest"
import { Context, Effect, Layer } from "effect"
import * as PgPairStore from "../../adapters/postgres/PgPairStore.ts"
import { type Fixture, insertFixture, keys } from "../support/Fixtures.ts"
import { makeScriptedSync, document as scriptedDocument } from "../support/ScriptedSync.ts"
import { BaseUrl, layer as serverLayer } from "../support/TestServer.ts"

const run = promisify(execFile)
const root = join(import.meta.dirname, "..", "..")
let work = ""
let consumer = ""
let clientTarball = ""

/**
 * The machine's own Node.js (outside any node_modules), beside the Node 24 running the tests: the
 * plain Node a consumer has, Node 20 on a fresh machine. npm runs on it, so it is always there.
 */
const machineNode = async (): Promise<string> => {
  const dirs = (process.env.PATH ?? "").split(delimiter).filter((dir) => dir !== "" && !dir.includes("node_modules"))
  for (const candidate of new Set([...dirs.map((dir) => join(dir, "node")), "/usr/bin/node", "/usr/local/bin/node"])) {
    if (!existsSync(candidate)) continue
    const { stdout } = await run(candidate, ["--version"]).catch(() => ({ stdout: "" }))
    const major = Number(/^v(\d+)\./.exec(stdout)?.[1])
    if (major >= 20) return candidate
  }
  throw new Error(
    "No Node.js 20 or later outside node_modules on PATH: the client is tested under the machine's own Node"
  )
}

/** The one tarball `npm pack` wrote, by its `--json` report. */
const packed = (stdout: string) => (JSON.parse(stdout.slice(stdout.indexOf("["))) as Array<{ filename: string }>)[0]!

const syncScript = `import { readFile, writeFile } from "node:fs/promises"
import { PartnerReceivables } from "partner-receivables-client"
const file = process.env.STATE_FILE
const state = await readFile(file, "utf8").then(JSON.parse, () => ({ copy: {} }))
const client = new PartnerReceivables({ apiKey: process.env.API_KEY, baseUrl: process.env.BASE_URL })
const result = await client.sync({
  feed: process.env.FEED,
  checkpoint: state.checkpoint,
  limit: 3,
  onReceivable: (receivable) => { state.copy[receivable.id] = receivable },
  // A pair's schedule moves without a change to its receivables: set it on each of them.
  onSchedule: ({ vendor_id, debtor_id, estimated_next_update_at }) => {
    for (const receivable of Object.values(state.copy)) {
      if (receivable.vendor.id === vendor_id && receivable.debtor.id === debtor_id) {
        receivable.estimated_next_update_at = estimated_next_update_at
      }
    }
  },
  // The copy and the checkpoint are written together, so one never runs ahead of the other.
  saveCheckpoint: (checkpoint) => writeFile(file, JSON.stringify({ copy: state.copy, checkpoint }))
})
console.log(JSON.stringify({ fullLoad: result.fullLoad, receivables: result.receivables }))
`

const effectScript = `import { Effect, Redacted } from "effect"
import { FetchHttpClient } from "effect/http"
import { ApiClient } from "partner-receivables"
const program = Effect.gen(function* () {
  const api = yield* ApiClient.make({ baseUrl: process.env.BASE_URL, apiKey: Redacted.make(process.env.API_KEY) })
  const page = yield* api.receivables.list({ query: { verified_since: "all", history_limit: 0, page: 1, limit: 500 } })
  return page.data.map((receivable) => receivable.id)
})
console.log(JSON.stringify(await Effect.runPromise(program.pipe(Effect.provide(FetchHttpClient.layer)))))
`

beforeAll(async () => {
  work = await mkdtemp(join(tmpdir(), "pr-packed-client-"))
  // The library is built into a copy of its package, not core/dist: another test packs that.
  const library = join(work, "partner-receivables")
  await mkdir(library)
  await copyFile(join(root, "core", "package.json"), join(library, "package.json"))
  const tsc = join(root, "node_modules", "typescript", "bin", "tsc")
  await run(process.execPath, [tsc, "-p", join(root, "core", "tsconfig.build.json"), "--outDir", join(library, "dist")])
  const pack = async (args: ReadonlyArray<string>) =>
    packed((await run("npm", ["pack", ...args, "--pack-destination", work, "--json"], { cwd: root })).stdout).filename
  const libraryTarball = await pack([library, "--ignore-scripts"])
  clientTarball = await pack(["-w", "partner-receivables-client"])

  consumer = join(work, "consumer")
  await mkdir(consumer)
  const dependencies = {
    effect: "4.1.0",
    "partner-receivables": `file:../${libraryTarball}`,
    "partner-receivables-client": `file:../${clientTarball}`
  }
  await writeFile(join(consumer, "package.json"), JSON.stringify({ private: true, type: "module", dependencies }))
  await run("npm", ["install", "--prefer-offline", "--no-audit", "--no-fund"], { cwd: consumer })
  await writeFile(join(consumer, "sync.mjs"), syncScript)
  await writeFile(join(consumer, "effect.mjs"), effectScript)
}, 180_000)

afterAll(() => (work === "" ? undefined : rm(work, { recursive: true, force: true })))

class TestFixture extends Context.Service<TestFixture, Fixture>()("test/Fixture") {}

const TestLayer = Layer.effect(TestFixture, insertFixture).pipe(
  Layer.provideMerge(PgPairStore.layer),
  Layer.provideMerge(serverLayer)
)

const document = (key: string, portalStatus: string) => scriptedDocument(key, portalStatus, "packed-client")

/** One sync of the organization's first pair with these documents, as the engine would run it. */
const syncPair = makeScriptedSync(0xc11e00)

/** Every receivable of org A as a full load reads it, the shape `sync` hands over. */
const serverCopy = Effect.gen(function* () {
  const base = yield* BaseUrl
  const response = yield* Effect.promise(() =>
    fetch(`${base}/v1/receivables?verified_since=all&expand[]=metadata&limit=500`, {
      headers: { authorization: `Bearer ${keys.orgA}` }
    })
  )
  const page = (yield* Effect.promise(() => response.json())) as { data: Array<{ id: string }> }
  return Object.fromEntries(page.data.map((receivable) => [receivable.id, receivable]))
})

const node = (binary: string, script: string, env: Record<string, string>) =>
  Effect.promise(() => run(binary, [script], { cwd: consumer, env: { ...process.env, ...env } })).pipe(
    Effect.map(({ stdout }) => JSON.parse(stdout) as unknown)
  )

layer(TestLayer, { timeout: 120_000, excludeTestServices: true })(
  "the packed packages, from a consumer project",
  (it) => {
    it.effect("install without the service, and keep a copy equal to the service's on each feed and Node", () =>
      Effect.gen(function* () {
        const f = yield* TestFixture
        const base = yield* BaseUrl
        const manifest = JSON.parse(
          yield* Effect.promise(() =>
            readFile(join(consumer, "node_modules", "partner-receivables-client", "package.json"), "utf8")
          )
        ) as { dependencies?: unknown }
        assert.isUndefined(manifest.dependencies)
        const { stdout } = yield* Effect.promise(() => run("tar", ["-tzf", join(work, clientTarball)]))
        const files = stdout.trim().split("\n")
        assert.isTrue(
          files.every((file) => /^package\/(package\.json|README\.md|dist\/[a-z]+\.(js|d\.ts))$/.test(file)),
          files.join(" ")
        )

        yield* syncPair(f.orgA, [document("c1", "Submitted"), document("c2", "Submitted")])
        const runs = [process.execPath, yield* Effect.promise(machineNode)].flatMap((binary, index) =>
          (["events", "watermark"] as const).map((feed) => ({
            binary,
            env: { BASE_URL: base, API_KEY: keys.orgA, FEED: feed, STATE_FILE: join(work, `${feed}-${index}.json`) }
          }))
        )
        for (const { binary, env } of runs) {
          const full = (yield* node(binary, "sync.mjs", env)) as { fullLoad: boolean; receivables: number }
          assert.isTrue(full.fullLoad, binary)
          assert.strictEqual(full.receivables, 10, binary)
        }

        // A sync changes one receivable and adds one; the incremental step brings both.
        yield* syncPair(f.orgA, [document("c1", "Paid"), document("c2", "Submitted"), document("c3", "Submitted")])
        const expected = yield* serverCopy
        for (const { binary, env } of runs) {
          const next = (yield* node(binary, "sync.mjs", env)) as { fullLoad: boolean; receivables: number }
          assert.isFalse(next.fullLoad, `${binary} ${env.FEED}`)
          assert.isAtLeast(next.receivables, 2, `${binary} ${env.FEED}`)
          const state = JSON.parse(yield* Effect.promise(() => readFile(env.STATE_FILE, "utf8"))) as { copy: unknown }
          assert.deepStrictEqual(state.copy, expected, `${binary} ${env.FEED}`)
        }

        const ids = yield* node(process.execPath, "effect.mjs", { BASE_URL: base, API_KEY: keys.orgA })
        assert.deepStrictEqual(ids, Object.keys(expected))
      })
    )
  }
)
