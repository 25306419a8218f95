/**
 * The library as an embedder gets it: `partner-receivables` packed, installed from its tarball
 * beside `effect` (its one dependency) in a new project. A program that imports nothing else
 * builds every exported service's layer over the memory twins (`MemoryStorage.layer`, the webhooks'
 * store among them) and the few ports that are the embedder's to provide (password hashing, common
 * passwords, one-time codes, connectors, secrets, ids, webhooks' crypto and sender); and the
 * in-memory example of docs/embedding.md, taken from the page as written,
 * runs the whole flow. Both type-check against the package's declarations and run under Node.
 */
import { execFile } from "node:child_process"
import { copyFile, mkdir, mkdtemp, readFile, rm, writeFile } from "node:fs/promises"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { promisify } from "node:util"
import { afterAll, assert, beforeAll, describe, it } from "@effect/vitest"

const run = promisify(execFile)
const root = join(import.meta.dirname, "..", "..")
let work = ""
let consumer = ""

/** Builds every exported service's layer, then reports which exported keys the built context lacks. */
const program = `import { Context, Effect, Layer, Option, Redacted } from "effect"
import { Digest, SecureRandom } from "effect/crypto"
import { FetchHttpClient } from "effect/http"
import * as Library from "partner-receivables"

const {
  Accounts, ApiClient, ApiKeys, CommonPasswords, Directory, Feed, IdSource, Ids, IntegrationAdministration,
  KeyAdministration, ManualSync, MemoryStorage, OneTimeCodes, OrganizationAudit, OrganizationUsage, PairSyncNow,
  PasswordHasher, PortalConnector, ReceivableFinder, Receivables, SecondFactors, Secrets, SyncEngine, Team,
  VerifiedKeyCache, WebhookCrypto, WebhookDelivery, WebhookEndpoints, WebhookSender
} = Library

// What only the embedder can provide; a real one hashes with scrypt or argon2 and reads secrets
// from its vault.
const embedder = Layer.mergeAll(
  Layer.succeed(PasswordHasher.PasswordHasher, {
    hash: (password) => Effect.succeed(\`plain:\${Redacted.value(password)}\`),
    verify: (password, stored) => Effect.succeed(stored === \`plain:\${Redacted.value(password)}\`)
  }),
  Layer.succeed(CommonPasswords.CommonPasswords, { isListed: (text) => text === "password1234" }),
  Layer.succeed(OneTimeCodes.OneTimeCodes, {
    newSecret: Effect.succeed(Redacted.make("JBSWY3DPEHPK3PXPJBSWY3DPEHPK3PXP")),
    codeAt: (_secret, step) => String(step % 1_000_000).padStart(6, "0"),
    uri: (_secret, issuer, account) => \`otpauth://totp/\${issuer}:\${account}\`
  }),
  Layer.succeed(PortalConnector.PortalConnectors, { get: () => Option.none() }),
  Layer.succeed(Secrets.Secrets, {
    resolve: () => Effect.fail(new Secrets.SecretUnavailable({ message: "no secrets in this program" }))
  }),
  Layer.succeed(IdSource.IdSource, {
    receivableId: () => Ids.receivableIdFromBytes(crypto.getRandomValues(new Uint8Array(16))),
    requestId: () => \`req_\${crypto.randomUUID().replaceAll("-", "").slice(0, 24)}\`
  }),
  Layer.succeed(WebhookCrypto.WebhookCrypto, {
    randomBytes: (size) => crypto.getRandomValues(new Uint8Array(size)),
    sign: () => "unsigned",
    seal: (secret) => Effect.succeed(Redacted.value(secret)),
    open: (sealed) => Effect.succeed(Redacted.make(sealed))
  }),
  Layer.succeed(WebhookSender.WebhookSender, {
    check: () => Effect.void,
    send: () => Effect.succeed({ kind: "connection_failed", message: "no network in this program", durationMs: 0 })
  }),
  Digest.layerWebCrypto,
  SecureRandom.layerWebCrypto,
  FetchHttpClient.layer
)

const services = Layer.mergeAll(
  PairSyncNow.PairSyncNow.layer,
  OrganizationAudit.OrganizationAudit.layer,
  OrganizationUsage.OrganizationUsage.layer,
  WebhookEndpoints.WebhookEndpoints.layer,
  Team.Team.layer,
  ApiClient.ApiClient.layer({ baseUrl: "https://receivables.example", apiKey: Redacted.make("pr_live_x") })
).pipe(
  Layer.provideMerge(IntegrationAdministration.IntegrationAdministration.layer),
  Layer.provideMerge(Layer.merge(KeyAdministration.KeyAdministration.layer, ManualSync.ManualSync.layer)),
  Layer.provideMerge(WebhookDelivery.WebhookDelivery.layer),
  Layer.provideMerge(
    Layer.mergeAll(
      Accounts.Accounts.layer,
      ApiKeys.ApiKeys.layerWith({ brand: "pr" }).pipe(Layer.provide(VerifiedKeyCache.layerWith({ ttl: "10 seconds" }))),
      Directory.Directory.layer,
      Feed.Feed.layer,
      Receivables.Receivables.layer,
      ReceivableFinder.ReceivableFinder.layer,
      SyncEngine.SyncEngine.layer
    )
  ),
  Layer.provideMerge(SecondFactors.SecondFactors.layer),
  Layer.provideMerge(MemoryStorage.layer),
  Layer.provideMerge(embedder)
)

/** Every exported service that has a layer of its own: \`Module.Name\`. */
const exported = Object.entries(Library).flatMap(([module, members]) =>
  Object.entries(members).flatMap(([name, value]) =>
    Context.isKey(value) && ("layer" in value || "layerWith" in value) ? [{ name: \`\${module}.\${name}\`, key: value }] : []
  )
)

const report = Effect.scoped(
  Effect.map(Layer.build(services), (context) => ({
    services: exported.map(({ name }) => name).sort(),
    missing: exported.filter(({ key }) => Option.isNone(Context.getOption(context, key))).map(({ name }) => name)
  }))
)

console.log(JSON.stringify(await Effect.runPromise(report)))
`

/** The first TypeScript block of docs/embedding.md's section on running in memory, as written. */
const inMemoryExample = async () => {
  const page = await readFile(join(root, "docs", "embedding.md"), "utf8")
  const section = page.slice(page.indexOf("## In memory, without PostgreSQL"))
  const block = /```ts\n([\s\S]*?)\n```/.exec(section)?.[1]
  assert.isDefined(block, "docs/embedding.md has a TypeScript block under ## In memory, without PostgreSQL")
  return block!
}

beforeAll(async () => {
  work = await mkdtemp(join(tmpdir(), "pr-embedding-"))
  // Built into a copy of the package, not core/dist, which the package's own test packs.
  const library = join(work, "partner-receivables")
  await mkdir(library)
  await copyFile(join(root, "core", "package.json"), join(library, "package.json"))
  const tsc = join(root, "node_modules", "typescript", "bin", "tsc")
  await run(process.execPath, [tsc, "-p", join(root, "core", "tsconfig.build.json"), "--outDir", join(library, "dist")])
  const { stdout } = await run("npm", ["pack", library, "--ignore-scripts", "--pack-destination", work, "--json"])
  const [packed] = JSON.parse(stdout.slice(stdout.indexOf("["))) as Array<{ filename: string }>

  consumer = join(work, "consumer")
  await mkdir(consumer)
  const dependencies = { effect: "4.1.0", "partner-receivables": `file:../${packed!.filename}` }
  await writeFile(join(consumer, "package.json"), JSON.stringify({ private: true, type: "module", dependencies }))
  await run("npm", ["install", "--prefer-offline", "--no-audit", "--no-fund"], { cwd: consumer })
  await writeFile(join(consumer, "layers.ts"), program)
  await writeFile(join(consumer, "embedding.ts"), await inMemoryExample())
}, 180_000)

afterAll(() => (work === "" ? undefined : rm(work, { recursive: true, force: true })))

describe("the packed library, beside effect alone", () => {
  it("builds every exported service's layer from the package's exports, over its memory twins", async () => {
    const { stdout } = await run(process.execPath, ["layers.ts"], { cwd: consumer })
    const { services, missing } = JSON.parse(stdout) as { services: Array<string>; missing: Array<string> }
    assert.deepStrictEqual(missing, [])
    for (const service of [
      "Accounts.Accounts",
      "ApiClient.ApiClient",
      "ApiKeys.ApiKeys",
      "Directory.Directory",
      "Feed.Feed",
      "IntegrationAdministration.IntegrationAdministration",
      "KeyAdministration.KeyAdministration",
      "OrganizationAudit.OrganizationAudit",
      "OrganizationUsage.OrganizationUsage",
      "Receivables.Receivables",
      "SecondFactors.SecondFactors",
      "SyncEngine.SyncEngine",
      "Team.Team"
    ]) {
      assert.include(services, service)
    }
  })

  it("runs docs/embedding.md's in-memory example as written: an integration synced, listed and in the feed", async () => {
    const { stdout } = await run(process.execPath, ["embedding.ts"], { cwd: consumer })
    const result = JSON.parse(stdout) as {
      sync: string
      receivables: Array<[string, string, string]>
      events: Array<[number, string]>
      keyOfTheOrganization: boolean
    }
    assert.strictEqual(result.sync, "Succeeded")
    assert.sameDeepMembers(result.receivables, [
      ["INV-1", "APPROVED", "Globex Corporation"],
      ["INV-2", "PAID", "Globex Corporation"]
    ])
    assert.deepStrictEqual(result.events, [
      [1, "receivable.created"],
      [2, "receivable.created"]
    ])
    assert.isTrue(result.keyOfTheOrganization)
  })

  it("type-checks both programs against the package's declarations", async () => {
    await writeFile(
      join(consumer, "tsconfig.json"),
      JSON.stringify({
        compilerOptions: {
          module: "nodenext",
          moduleResolution: "nodenext",
          target: "es2024",
          lib: ["es2024", "dom"],
          strict: true,
          noEmit: true,
          allowImportingTsExtensions: true,
          types: []
        },
        files: ["layers.ts", "embedding.ts"]
      })
    )
    const tsc = join(root, "node_modules", "typescript", "bin", "tsc")
    const result = await run(process.execPath, [tsc, "-p", consumer]).then(
      () => "",
      (error: { stdout?: string }) => error.stdout ?? String(error)
    )
    assert.strictEqual(result, "")
  })
})
