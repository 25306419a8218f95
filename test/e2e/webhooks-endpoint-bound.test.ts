/**
 * The bound on an organization's webhook endpoints (`WEBHOOK_MAX_ENDPOINTS_PER_ORG`, 2 here) over
 * a real socket and a real PostgreSQL, wired as the app wires them: creations past it, however
 * many arrive at once, are refused with 400 in the documented error shape and create nothing;
 * another organization is not held by it; a removal frees a place; the dashboard's form says why.
 */
import { randomBytes } from "node:crypto"
import { assert, layer } from "@effect/vitest"
import { Effect, Layer } from "effect"
import { SqlClient } from "effect/sql"
import { AccountsLive } from "../../app/Layers.ts"
import { makeApiKey, secretBytes } from "../../core/access/domain/ApiKey.ts"
import { PairStoreHarness } from "../contracts/PairStore.harness.ts"
import * as PostgresHarness from "../contracts/PairStore.postgresHarness.ts"
import { run, signedIn } from "../support/DashboardClient.ts"
import { BaseUrl, serverLayer } from "../support/TestServer.ts"

const bound = 2

const TestLayer = Layer.mergeAll(
  serverLayer({
    dashboard: true,
    settings: {
      WEBHOOK_MAX_ENDPOINTS_PER_ORG: String(bound),
      WEBHOOK_ALLOWED_HOSTS: "127.0.0.1:1-65535",
      WEBHOOK_SECRET_KEYS: `1:${randomBytes(32).toString("base64")}`
    }
  }),
  AccountsLive
).pipe(Layer.provideMerge(PostgresHarness.layer))

// An address the service may send to (loopback is allowed to it); nothing listens there.
const endpointBody = JSON.stringify({ url: "http://127.0.0.1:9/receive", event_types: ["receivable.created"] })

/** A new organization with a key that may manage its webhooks. */
const organizationWithKey = (seed: number) =>
  Effect.gen(function* () {
    const sql = yield* SqlClient.SqlClient
    const { orgId } = yield* (yield* PairStoreHarness).addPair({ dueInSeconds: 3600 })
    const key = makeApiKey("pr", new Uint8Array(secretBytes).fill(seed))
    yield* sql`INSERT INTO api_keys (org_id, key_hash, display_start, permissions)
      VALUES (${orgId}, sha256(convert_to(${key}, 'UTF8')), 'pr_live_wh', '{webhooks}'::text[])`
    return key
  })

const call = (key: string, method: string, path: string, body?: string) =>
  Effect.gen(function* () {
    const base = yield* BaseUrl
    const response = yield* Effect.promise(() =>
      fetch(`${base}${path}`, {
        method,
        headers: {
          authorization: `Bearer ${key}`,
          ...(body === undefined ? {} : { "content-type": "application/json" })
        },
        ...(body === undefined ? {} : { body })
      })
    )
    const text = yield* Effect.promise(() => response.text())
    // biome-ignore lint/suspicious/noExplicitAny: JSON bodies are inspected field by field
    return { status: response.status, text, body: (text === "" ? null : JSON.parse(text)) as any }
  })

const listed = (key: string) =>
  Effect.map(call(key, "GET", "/v1/webhook_endpoints?limit=100"), (answer) => answer.body.data.length as number)

layer(TestLayer, { timeout: 60_000, excludeTestServices: true })("the bound on an organization's endpoints", (it) => {
  it.effect("refuses creations past it with 400, however many arrive at once; a removal frees a place", () =>
    Effect.gen(function* () {
      const key = yield* organizationWithKey(0x61)
      const other = yield* organizationWithKey(0x62)
      const answers = yield* Effect.all(
        Array.from({ length: 6 }, () => call(key, "POST", "/v1/webhook_endpoints", endpointBody)),
        { concurrency: "unbounded" }
      )
      const created = answers.filter((answer) => answer.status === 200)
      assert.lengthOf(created, bound)
      for (const refused of answers.filter((answer) => answer.status !== 200)) {
        assert.strictEqual(refused.status, 400, refused.text)
        assert.deepStrictEqual(refused.body, {
          error: {
            type: "invalid_request_error",
            code: "parameter_invalid",
            message: `Your organization has ${bound} webhook endpoints, the most it may have: remove one before creating another.`
          }
        })
      }
      assert.strictEqual(yield* listed(key), bound)

      // Another organization's endpoints are not counted against this one's bound.
      assert.strictEqual((yield* call(other, "POST", "/v1/webhook_endpoints", endpointBody)).status, 200)

      const removed = yield* call(key, "DELETE", `/v1/webhook_endpoints/${created[0]!.body.id}`)
      assert.include([200, 204], removed.status, removed.text)
      assert.strictEqual((yield* call(key, "POST", "/v1/webhook_endpoints", endpointBody)).status, 200)
      assert.strictEqual((yield* call(key, "POST", "/v1/webhook_endpoints", endpointBody)).status, 400)
      assert.strictEqual(yield* listed(key), bound)
    })
  )

  it.effect("the dashboard's form says why an endpoint past it is not added", () =>
    Effect.gen(function* () {
      const base = yield* BaseUrl
      const { orgId } = yield* (yield* PairStoreHarness).addPair({ dueInSeconds: 3600 })
      const admin = yield* signedIn(base, orgId, "admin")
      const add = run(() =>
        admin.client.post("/dashboard/webhooks", { csrf: admin.csrf, url: "http://127.0.0.1:9/in" })
      )
      for (let i = 0; i < bound; i++) assert.strictEqual((yield* add).status, 303)
      const refused = yield* add
      assert.strictEqual(refused.status, 400)
      assert.include(
        refused.body,
        `Not added: Your organization has ${bound} webhook endpoints, the most it may have: remove one before creating another.`
      )
    })
  )
})
