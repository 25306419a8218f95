/**
 * A client generated with strict validation of answers keeps reading them when the API adds a
 * field, as spec section 9 lets it. @hey-api/openapi-ts generates a fetch client that checks
 * every answer with valibot, which turns a schema's `additionalProperties: false` into
 * `strictObject` and refuses any field it does not name (the other generators here do not check
 * answers). The client reads every operation from the running service, each answer given to it
 * with one more field in every object, and must accept it and return it as it came.
 */
import { execFile } from "node:child_process"
import { mkdir, mkdtemp, rm, writeFile } from "node:fs/promises"
import { join } from "node:path"
import { pathToFileURL } from "node:url"
import { promisify } from "node:util"
import { afterAll, assert, beforeAll, layer } from "@effect/vitest"
import { Context, Effect, Layer } from "effect"
import { OpenApi } from "effect/http-api"
import * as PgPairStore from "../../adapters/postgres/PgPairStore.ts"
import { Api } from "../../core/api/Api.ts"
import { type Fixture, insertFixture, keys } from "../support/Fixtures.ts"
import { document, makeScriptedSync } from "../support/ScriptedSync.ts"
import { BaseUrl, layer as serverLayer } from "../support/TestServer.ts"

const run = promisify(execFile)
const workspace = import.meta.dirname
const root = join(workspace, "..", "..")

// Generated under the repository (in an ignored folder), so that its `import "valibot"` finds the
// workspace's valibot; removed afterwards.
let project = ""

beforeAll(async () => {
  await mkdir(join(root, "test-artifacts"), { recursive: true })
  project = await mkdtemp(join(root, "test-artifacts", "strict-client-"))
  await writeFile(join(project, "openapi.json"), JSON.stringify(OpenApi.fromApi(Api)))
  const config = {
    input: "openapi.json",
    output: { path: "client", importFileExtension: ".ts" },
    plugins: ["@hey-api/client-fetch", "valibot", { name: "@hey-api/sdk", validator: { response: "valibot" } }]
  }
  await writeFile(join(project, "openapi-ts.config.mjs"), `export default ${JSON.stringify(config)}`)
  const generator = join(root, "node_modules", "@hey-api", "openapi-ts", "dist", "run.mjs")
  await run(
    process.execPath,
    ["--import", join(workspace, "typescript5.ts"), generator, "-f", "openapi-ts.config.mjs"],
    {
      cwd: project,
      timeout: 60_000
    }
  )
}, 120_000)

afterAll(() => (project === "" ? undefined : rm(project, { recursive: true, force: true })))

/** A field no version of the document names yet. */
const later = { added_in_a_later_version: "a field this client does not know" }

/**
 * `value` with the new field in every object; a record (`changes`) gets none of its own, as its
 * keys are the names of changed fields and its values must be changes.
 */
const grown = (value: unknown, record = false): unknown => {
  if (Array.isArray(value)) return value.map((item) => grown(item))
  if (typeof value !== "object" || value === null) return value
  const members = Object.fromEntries(
    Object.entries(value).map(([key, member]) => [key, grown(member, key === "changes")])
  )
  return record ? members : { ...members, ...later }
}

type Call = (options: object) => Promise<{ readonly data: unknown }>

interface Sdk {
  readonly receivablesList: Call
  readonly receivablesGet: Call
  readonly vendorsList: Call
  readonly debtorsList: Call
  readonly integrationsList: Call
  readonly eventsList: Call
  readonly eventsGet: Call
}

interface GeneratedClient {
  readonly client: { readonly setConfig: (config: object) => void }
}

class TestFixture extends Context.Service<TestFixture, Fixture>()("test/StrictFixture") {}

const TestLayer = Layer.effect(TestFixture, insertFixture).pipe(
  Layer.provideMerge(PgPairStore.layer),
  Layer.provideMerge(serverLayer)
)

const syncPair = makeScriptedSync(0x57c700)

/**
 * The generated client, reading from `base` each answer as `alter` changes it; `given()` is the
 * last answer as the client was given it.
 */
const generatedClient = (base: string, alter: (answer: unknown) => unknown) =>
  Effect.promise(async () => {
    const sdk = (await import(/* @vite-ignore */ pathToFileURL(join(project, "client", "sdk.gen.ts")).href)) as Sdk
    const generated = (await import(
      /* @vite-ignore */ pathToFileURL(join(project, "client", "client.gen.ts")).href
    )) as GeneratedClient
    let given: unknown
    generated.client.setConfig({
      baseUrl: base,
      auth: () => keys.orgA,
      fetch: async (request: Request) => {
        const answer = await fetch(request)
        given = alter(await answer.json())
        return Response.json(given, { status: answer.status })
      }
    })
    return { sdk, given: () => given }
  })

const read = (call: Call, options: object) =>
  Effect.promise(() => call({ ...options, throwOnError: true })).pipe(Effect.map(({ data }) => data))

layer(TestLayer, { timeout: 120_000, excludeTestServices: true })("a client that validates answers strictly", (it) => {
  it.effect("reads every operation's answer with a field added to every object", () =>
    Effect.gen(function* () {
      const f = yield* TestFixture
      const base = yield* BaseUrl
      // Events of each type: created, then updated with a status change.
      yield* syncPair(f.orgA, [document("s1", "Submitted")])
      yield* syncPair(f.orgA, [document("s1", "Paid")])

      const client = yield* generatedClient(base, grown)
      const { sdk } = client
      const receivables = (yield* read(sdk.receivablesList, {
        query: { verified_since: "all", "expand[]": ["history", "metadata"], limit: 500 }
      })) as { data: ReadonlyArray<{ id: string }> }
      assert.deepStrictEqual(receivables, client.given())
      assert.isAbove(receivables.data.length, 0)
      const events = (yield* read(sdk.eventsList, { query: { after: 0 } })) as { data: ReadonlyArray<{ id: string }> }
      assert.deepStrictEqual(events, client.given())
      assert.sameMembers(
        events.data.map((event) => (event as unknown as { type: string }).type),
        ["receivable.created", "receivable.updated", "receivable.status_changed"]
      )
      const calls: ReadonlyArray<readonly [Call, object]> = [
        [sdk.receivablesGet, { path: { id: receivables.data[0]!.id } }],
        [sdk.vendorsList, {}],
        [sdk.debtorsList, {}],
        [sdk.integrationsList, {}],
        ...events.data.map((event): readonly [Call, object] => [sdk.eventsGet, { path: { id: event.id } }])
      ]
      for (const [call, options] of calls) {
        assert.deepStrictEqual(yield* read(call, options), client.given(), JSON.stringify(options))
      }
    })
  )

  it.effect("reads a failed sync whose error_class is one the document does not name yet", () =>
    Effect.gen(function* () {
      const f = yield* TestFixture
      yield* syncPair(f.orgA, [document("s2", "Submitted")])
      // Every pair's last sync, as a later version could answer it: failed, of a class added since.
      const failed = (answer: unknown) => {
        const list = answer as { data: ReadonlyArray<{ last_sync: object | null }> }
        return {
          ...list,
          data: list.data.map((integration) =>
            integration.last_sync === null
              ? integration
              : {
                  ...integration,
                  last_sync: {
                    ...integration.last_sync,
                    outcome: "failed",
                    error: "The debtor's portal is down for maintenance; the sync is retried.",
                    error_class: "portal_maintenance"
                  }
                }
          )
        }
      }
      const client = yield* generatedClient(yield* BaseUrl, failed)
      const integrations = (yield* read(client.sdk.integrationsList, {})) as {
        data: ReadonlyArray<{ last_sync: { error_class: string } | null }>
      }
      assert.deepStrictEqual(integrations, client.given())
      assert.include(
        integrations.data.map((integration) => integration.last_sync?.error_class),
        "portal_maintenance"
      )
    })
  )
})
