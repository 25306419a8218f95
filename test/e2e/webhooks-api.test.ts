/**
 * `/v1/webhook_endpoints` and `/v1/webhook_deliveries` over a real socket and a real PostgreSQL,
 * wired as the app wires them, with a webhook receiver on loopback:
 * a read-only key is refused with 403 on every route, a key with the `webhooks` permission
 * manages its organization's endpoints, another organization's ids are 404, the secret appears
 * in the create and rotate answers only (never in a list, a get or the audit log), a test beyond
 * the endpoint's cap of attempts in flight is refused 503, and request bodies are held to the
 * contract in the documented error shape.
 */

import { randomBytes } from "node:crypto"
import type { ServerResponse } from "node:http"
import { assert, layer } from "@effect/vitest"
import { Effect, Fiber, Layer } from "effect"
import { SqlClient } from "effect/sql"
import { verifyWebhook } from "../../client/src/mod.ts"
import { makeApiKey, type Permission, secretBytes } from "../../core/access/domain/ApiKey.ts"
import { eventually } from "../support/Eventually.ts"
import { BaseUrl, layerWith } from "../support/TestServer.ts"
import { receiver, webhookHeaders } from "../webhooks/support/Receiver.ts"

// The test server's settings are all the routes and the services read: the receiver listens on
// loopback, which only WEBHOOK_ALLOWED_HOSTS opens.
const webhookSettings = {
  WEBHOOK_ALLOWED_HOSTS: "127.0.0.1:1-65535",
  // One attempt in flight per endpoint, so that one held test fills an endpoint's cap.
  WEBHOOK_ENDPOINT_CONCURRENCY: "1",
  WEBHOOK_SECRET_KEYS: `1:${randomBytes(32).toString("base64")}`
}

const key = (seed: number) => makeApiKey("pr", new Uint8Array(secretBytes).fill(seed))

const keys = { readOnly: key(0x51), managerA: key(0x52), managerB: key(0x53) }

/** Two organizations: A with a read-only key and a managing one, B with a managing one. */
const setup = Effect.gen(function* () {
  const sql = yield* SqlClient.SqlClient
  const org = (name: string) =>
    Effect.map(
      sql<{ id: string }>`INSERT INTO organizations (name) VALUES (${name}) RETURNING id`,
      (rows) => rows[0]!.id
    )
  const orgA = yield* org("Hooks A")
  const orgB = yield* org("Hooks B")
  const insert = (orgId: string, secret: string, permissions: ReadonlyArray<Permission>) =>
    sql`INSERT INTO api_keys (org_id, key_hash, display_start, permissions)
        VALUES (${orgId}, sha256(convert_to(${secret}, 'UTF8')), 'pr_live_wh', ${`{${permissions.join(",")}}`}::text[])`
  yield* insert(orgA, keys.readOnly, [])
  yield* insert(orgA, keys.managerA, ["webhooks"])
  yield* insert(orgB, keys.managerB, ["webhooks"])
})

const TestLayer = Layer.effectDiscard(setup).pipe(
  Layer.provideMerge(
    layerWith({
      settings: { CORS_ORIGINS: "https://app.example.com", ...webhookSettings },
      // Next to no refill while the file runs, so that each request's cost shows.
      rateLimit: { perSecond: 0.001, burst: 100_000 }
    })
  )
)

interface Answer {
  readonly status: number
  readonly headers: Headers
  // biome-ignore lint/suspicious/noExplicitAny: JSON bodies are inspected field by field
  readonly body: any
  readonly text: string
}

const call = (method: string, path: string, options: { readonly key?: string | null; readonly body?: string } = {}) =>
  Effect.gen(function* () {
    const base = yield* BaseUrl
    const apiKey = options.key === undefined ? keys.managerA : options.key
    const response = yield* Effect.promise(() =>
      fetch(`${base}${path}`, {
        method,
        headers: {
          ...(apiKey === null ? {} : { authorization: `Bearer ${apiKey}` }),
          ...(options.body === undefined ? {} : { "content-type": "application/json" })
        },
        ...(options.body === undefined ? {} : { body: options.body })
      })
    )
    const text = yield* Effect.promise(() => response.text())
    return { status: response.status, headers: response.headers, body: text === "" ? null : JSON.parse(text), text }
  })

const send = (method: string, path: string, body: unknown, key?: string) =>
  call(method, path, { body: JSON.stringify(body), ...(key === undefined ? {} : { key }) })

// An address the test's sender may reach (loopback is allowed to it); nothing listens there.
const newEndpoint = { url: "http://127.0.0.1:9/receive", event_types: ["receivable.created"] }

const create = (body: unknown = newEndpoint, key?: string) =>
  Effect.map(send("POST", "/v1/webhook_endpoints", body, key), (answer: Answer) => {
    assert.strictEqual(answer.status, 200, answer.text)
    return answer.body as { readonly id: string; readonly secret: string; readonly [field: string]: unknown }
  })

const assertError = (answer: Answer, status: number, type: string, code: string, param?: string) => {
  assert.strictEqual(answer.status, status, answer.text)
  assert.strictEqual(answer.body.error.type, type, answer.text)
  assert.strictEqual(answer.body.error.code, code, answer.text)
  assert.isString(answer.body.error.message)
  if (param !== undefined) assert.strictEqual(answer.body.error.param, param, answer.text)
  assert.isString(answer.headers.get("request-id"))
}

/** Every route of the group, on an endpoint id and a delivery id, with a body where one is read. */
const routes = (endpoint: string, delivery: string): ReadonlyArray<readonly [string, string, unknown?]> => [
  ["POST", "/v1/webhook_endpoints", newEndpoint],
  ["GET", "/v1/webhook_endpoints"],
  ["GET", `/v1/webhook_endpoints/${endpoint}`],
  ["PATCH", `/v1/webhook_endpoints/${endpoint}`, { enabled: false }],
  ["DELETE", `/v1/webhook_endpoints/${endpoint}`],
  ["POST", `/v1/webhook_endpoints/${endpoint}/rotate_secret`],
  ["POST", `/v1/webhook_endpoints/${endpoint}/test`],
  ["POST", `/v1/webhook_endpoints/${endpoint}/replay`, { since: new Date().toISOString() }],
  ["GET", `/v1/webhook_endpoints/${endpoint}/deliveries`],
  ["GET", `/v1/webhook_deliveries/${delivery}`],
  ["POST", `/v1/webhook_deliveries/${delivery}/retry`]
]

layer(TestLayer, { timeout: 60_000, excludeTestServices: true })("the webhooks API", (it) => {
  it.effect("refuses a read-only key with 403 on every route, before reading the body; it still reads", () =>
    Effect.gen(function* () {
      const { id } = yield* create()
      for (const [method, path, body] of routes(id, "wd_00000000000000000000000000000000")) {
        const answer = yield* call(method, path, {
          key: keys.readOnly,
          ...(body === undefined ? {} : { body: "{not json" })
        })
        assertError(answer, 403, "permission_error", "permission_denied")
        assert.include(answer.body.error.message, "webhooks")
      }
      assert.strictEqual((yield* call("GET", "/v1/vendors", { key: keys.readOnly })).status, 200)
      // Unchanged by the refused requests.
      assert.strictEqual((yield* call("GET", `/v1/webhook_endpoints/${id}`)).body.enabled, true)
    })
  )

  it.effect("answers 401 before 403: no key, or a wrong one, is an authentication error", () =>
    Effect.gen(function* () {
      assertError(
        yield* call("GET", "/v1/webhook_endpoints", { key: null }),
        401,
        "authentication_error",
        "api_key_missing"
      )
      assertError(
        yield* call("GET", "/v1/webhook_endpoints", { key: key(0x99) }),
        401,
        "authentication_error",
        "api_key_invalid"
      )
    })
  )

  it.effect("shows the secret once at creation and once per rotation, never in a list or a get", () =>
    Effect.gen(function* () {
      const created = yield* create({ ...newEndpoint, description: "ledger sync" })
      assert.match(created.secret, /^whsec_[A-Za-z0-9+/]+=*$/)
      assert.match(created.id, /^we_[0-9a-f]{32}$/)
      assert.deepInclude(created, {
        object: "webhook_endpoint",
        url: newEndpoint.url,
        event_types: newEndpoint.event_types,
        description: "ledger sync",
        enabled: true,
        disabled_reason: null
      })

      const got = yield* call("GET", `/v1/webhook_endpoints/${created.id}`)
      assert.strictEqual(got.status, 200)
      assert.notProperty(got.body, "secret")
      const { secret: _, ...withoutSecret } = created as unknown as Record<string, unknown>
      assert.deepStrictEqual(got.body, withoutSecret)

      const listed = yield* call("GET", "/v1/webhook_endpoints?limit=500")
      assert.strictEqual(listed.status, 200)
      assert.include(
        listed.body.data.map((e: { id: string }) => e.id),
        created.id
      )
      assert.notInclude(listed.text, created.secret)
      assert.notInclude(listed.text, '"secret"')

      const rotated = yield* call("POST", `/v1/webhook_endpoints/${created.id}/rotate_secret`)
      assert.strictEqual(rotated.status, 200, rotated.text)
      assert.match(rotated.body.secret, /^whsec_/)
      assert.notStrictEqual(rotated.body.secret, created.secret)
      const expires = Date.parse(rotated.body.previous_secret_expires_at)
      assert.approximately(expires - Date.now(), 24 * 3600_000, 60_000)
      assert.notInclude((yield* call("GET", `/v1/webhook_endpoints/${created.id}`)).text, rotated.body.secret)
    })
  )

  it.effect("keeps no secret in the audit log: entries hold the path and status only", () =>
    Effect.gen(function* () {
      const created = yield* create()
      const rotated = yield* call("POST", `/v1/webhook_endpoints/${created.id}/rotate_secret`)
      const sql = yield* SqlClient.SqlClient
      const rows = yield* sql<{ row: string; path: string; status: number; method: string }>`
        SELECT row_to_json(a)::text AS row, path, status, method FROM audit_log a WHERE path LIKE '/v1/webhook_endpoints%'`
      assert.isTrue(rows.some((r) => r.method === "POST" && r.path === "/v1/webhook_endpoints" && r.status === 200))
      assert.isTrue(
        rows.some((r) => r.path === `/v1/webhook_endpoints/${created.id}/rotate_secret` && r.status === 200)
      )
      for (const { row } of rows) {
        for (const secret of [created.secret, rotated.body.secret as string]) {
          assert.notInclude(row, secret)
          assert.notInclude(row, secret.slice("whsec_".length))
        }
      }
    })
  )

  it.effect("updates only the fields given, and deletes: the endpoint is then not found", () =>
    Effect.gen(function* () {
      const { id } = yield* create()
      const disabled = yield* send("PATCH", `/v1/webhook_endpoints/${id}`, { enabled: false, description: "paused" })
      assert.strictEqual(disabled.status, 200, disabled.text)
      assert.deepInclude(disabled.body, {
        enabled: false,
        disabled_reason: "manual",
        description: "paused",
        url: newEndpoint.url
      })
      const moved = yield* send("PATCH", `/v1/webhook_endpoints/${id}`, {
        url: "http://127.0.0.1:9/other",
        event_types: ["receivable.updated", "receivable.status_changed"],
        description: null,
        enabled: true
      })
      assert.deepInclude(moved.body, {
        url: "http://127.0.0.1:9/other",
        event_types: ["receivable.updated", "receivable.status_changed"],
        description: null,
        enabled: true,
        disabled_reason: null
      })
      const deleted = yield* call("DELETE", `/v1/webhook_endpoints/${id}`)
      assert.deepStrictEqual([deleted.status, deleted.body], [200, { id, object: "webhook_endpoint", deleted: true }])
      assertError(
        yield* call("GET", `/v1/webhook_endpoints/${id}`),
        404,
        "invalid_request_error",
        "resource_missing",
        "id"
      )
      assertError(
        yield* call("DELETE", `/v1/webhook_endpoints/${id}`),
        404,
        "invalid_request_error",
        "resource_missing"
      )
    })
  )

  it.effect("answers another organization's endpoint ids as it answers unknown ones: 404, and changes nothing", () =>
    Effect.gen(function* () {
      const ofA = yield* create()
      for (const [method, path, body] of routes(ofA.id, "wd_00000000000000000000000000000000").slice(2)) {
        const answer = yield* call(method, path, {
          key: keys.managerB,
          ...(body === undefined ? {} : { body: JSON.stringify(body) })
        })
        assertError(answer, 404, "invalid_request_error", "resource_missing", "id")
      }
      const listedByB = yield* call("GET", "/v1/webhook_endpoints?limit=500", { key: keys.managerB })
      assert.notInclude(listedByB.text, ofA.id)
      const still = yield* call("GET", `/v1/webhook_endpoints/${ofA.id}`)
      assert.deepInclude(still.body, { id: ofA.id, enabled: true })
    })
  )

  it.effect("refuses a malformed starting_after on both lists with 400; a well-formed id is a place in the list", () =>
    Effect.gen(function* () {
      const ids = (answer: Answer): Array<string> => answer.body.data.map((item: { id: string }) => item.id)
      const [first, second] = [yield* create(), yield* create()]
      const ofB = yield* create(newEndpoint, keys.managerB)
      // A delivery in each organization: a test to an address where nothing listens.
      const tested = yield* call("POST", `/v1/webhook_endpoints/${first.id}/test`)
      assert.strictEqual(tested.status, 200, tested.text)
      const testedByB = yield* call("POST", `/v1/webhook_endpoints/${ofB.id}/test`, { key: keys.managerB })
      assert.strictEqual(testedByB.status, 200, testedByB.text)
      const lists = [
        { path: "/v1/webhook_endpoints", prefix: "we_", ofB: ofB.id },
        { path: `/v1/webhook_endpoints/${first.id}/deliveries`, prefix: "wd_", ofB: testedByB.body.id as string }
      ]
      for (const list of lists) {
        // NUL (which PostgreSQL refuses in text), a plain word, a non-ASCII letter, an id of the
        // other kind, an id in capitals: each a 400 naming the parameter, before any query.
        const malformed = ["%00", "x", "%C3%A9", `${list.prefix === "we_" ? "wd_" : "we_"}${"0".repeat(32)}`]
        for (const cursor of [...malformed, `${list.prefix}${"A".repeat(32)}`]) {
          const answer = yield* call("GET", `${list.path}?starting_after=${cursor}`)
          assertError(answer, 400, "invalid_request_error", "parameter_invalid", "starting_after")
          assert.include(answer.body.error.message, list.prefix, cursor)
        }
        // A well-formed id is a place in the list's order, another organization's too: the page
        // holds this organization's items after it, and nothing of the other's.
        const whole = ids(yield* call("GET", `${list.path}?limit=500`))
        const newestFirst = list.prefix === "wd_"
        const after = (cursor: string) => whole.filter((id) => (newestFirst ? id < cursor : id > cursor))
        for (const cursor of [list.ofB, `${list.prefix}${"0".repeat(32)}`, `${list.prefix}${"f".repeat(32)}`]) {
          const page = yield* call("GET", `${list.path}?limit=500&starting_after=${cursor}`)
          assert.strictEqual(page.status, 200, page.text)
          assert.deepStrictEqual(ids(page), after(cursor), cursor)
          assert.notInclude(page.text, list.ofB)
        }
      }
      assert.includeMembers(ids(yield* call("GET", "/v1/webhook_endpoints?limit=500")), [first.id, second.id])
    })
  )

  it.effect("answers a test beyond the endpoint's attempts in flight 503 with Retry-After, and sends nothing", () =>
    Effect.gen(function* () {
      const held: Array<ServerResponse> = []
      const target = yield* receiver((_, response) => held.push(response))
      const created = yield* create({ url: target.url, event_types: ["receivable.created"] })
      const first = yield* Effect.forkChild(call("POST", `/v1/webhook_endpoints/${created.id}/test`))
      yield* eventually(
        "the first test in flight",
        Effect.sync(() => held.length === 1)
      )
      const second = yield* call("POST", `/v1/webhook_endpoints/${created.id}/test`)
      assertError(second, 503, "api_error", "service_unavailable")
      assert.strictEqual(second.headers.get("retry-after"), "5")
      held[0]!.writeHead(200).end()
      assert.strictEqual((yield* Fiber.join(first)).status, 200)
      assert.lengthOf(target.received, 1)
      const listed = yield* call("GET", `/v1/webhook_endpoints/${created.id}/deliveries`)
      assert.lengthOf(listed.body.data, 1)
      // Room again once the first has ended.
      target.answer = (_, response) => response.writeHead(200).end()
      assert.strictEqual((yield* call("POST", `/v1/webhook_endpoints/${created.id}/test`)).status, 200)
    }).pipe(Effect.scoped)
  )

  it.effect(
    "sends a test through the real delivery path: the answer is its attempt, the SDK verifies what arrived",
    () =>
      Effect.gen(function* () {
        const target = yield* receiver((_, response) => response.writeHead(200).end("thanks"))
        const created = yield* create({ url: target.url, event_types: ["receivable.created"] })
        const tested = yield* call("POST", `/v1/webhook_endpoints/${created.id}/test`)
        assert.strictEqual(tested.status, 200, tested.text)
        assert.deepInclude(tested.body, {
          object: "webhook_delivery",
          webhook_endpoint_id: created.id,
          event_type: "webhook.test",
          status: "succeeded",
          attempt_count: 1
        })
        assert.lengthOf(tested.body.attempts, 1)
        assert.deepInclude(tested.body.attempts[0], {
          trigger: "test",
          outcome: "succeeded",
          status_code: 200,
          error: null,
          response_body: "thanks"
        })
        const [arrived] = target.received
        const event = yield* Effect.promise(() =>
          verifyWebhook(arrived!.body, webhookHeaders(arrived!.headers), created.secret)
        )
        assert.strictEqual(event.id, tested.body.event_id)

        // After a rotation both secrets sign, for receivers that have not switched yet.
        const rotated = yield* call("POST", `/v1/webhook_endpoints/${created.id}/rotate_secret`)
        const secondTest = yield* call("POST", `/v1/webhook_endpoints/${created.id}/test`)
        const second = target.received[1]!
        for (const secret of [created.secret, rotated.body.secret as string]) {
          yield* Effect.promise(() => verifyWebhook(second.body, webhookHeaders(second.headers), secret))
        }

        // The deliveries, newest first, filtered; one by its id with its attempts; a retry.
        const listed = yield* call("GET", `/v1/webhook_endpoints/${created.id}/deliveries?event_type=webhook.test`)
        assert.strictEqual(listed.status, 200, listed.text)
        assert.deepStrictEqual(
          listed.body.data.map((d: { id: string }) => d.id),
          [secondTest.body.id, tested.body.id]
        )
        assert.lengthOf(
          (yield* call("GET", `/v1/webhook_endpoints/${created.id}/deliveries?status=failed`)).body.data,
          0
        )
        const page = yield* call("GET", `/v1/webhook_endpoints/${created.id}/deliveries?limit=1`)
        assert.deepStrictEqual([page.body.data.length, page.body.has_more], [1, true])
        const next = yield* call(
          "GET",
          `/v1/webhook_endpoints/${created.id}/deliveries?limit=1&starting_after=${page.body.data[0].id}`
        )
        assert.deepStrictEqual(
          next.body.data.map((d: { id: string }) => d.id),
          [tested.body.id]
        )
        const one = yield* call("GET", `/v1/webhook_deliveries/${tested.body.id}`)
        assert.strictEqual(one.status, 200, one.text)
        assert.deepStrictEqual(one.body.attempts, tested.body.attempts)
        const retried = yield* call("POST", `/v1/webhook_deliveries/${tested.body.id}/retry`)
        assert.strictEqual(retried.status, 200, retried.text)
        assert.deepInclude(retried.body, { id: tested.body.id, status: "pending" })
        assertError(
          yield* call("POST", `/v1/webhook_deliveries/${tested.body.id}/retry`, { key: keys.managerB }),
          404,
          "invalid_request_error",
          "resource_missing",
          "id"
        )
        assertError(
          yield* call("GET", `/v1/webhook_deliveries/${tested.body.id}`, { key: keys.managerB }),
          404,
          "invalid_request_error",
          "resource_missing",
          "id"
        )
      }).pipe(Effect.scoped)
  )

  it.effect("answers a method a path does not take with 405 naming the ones it does; preflights allow the writes", () =>
    Effect.gen(function* () {
      const { id } = yield* create()
      for (const [method, path, allow] of [
        ["PUT", "/v1/webhook_endpoints", "GET, POST"],
        ["POST", `/v1/webhook_endpoints/${id}`, "GET, PATCH, DELETE"],
        ["GET", `/v1/webhook_endpoints/${id}/test`, "POST"],
        ["POST", "/v1/vendors", "GET"]
      ] as const) {
        const answer = yield* call(method, path)
        assertError(answer, 405, "invalid_request_error", "method_not_allowed")
        assert.strictEqual(answer.headers.get("allow"), allow)
      }
      const base = yield* BaseUrl
      const preflight = (path: string, method: string) =>
        Effect.promise(() =>
          fetch(`${base}${path}`, {
            method: "OPTIONS",
            headers: {
              origin: "https://app.example.com",
              "access-control-request-method": method,
              "access-control-request-headers": "authorization, content-type"
            }
          })
        )
      const patch = yield* preflight(`/v1/webhook_endpoints/${id}`, "PATCH")
      assert.strictEqual(patch.status, 204)
      assert.strictEqual(patch.headers.get("access-control-allow-methods"), "GET, HEAD, PATCH, DELETE")
      assert.include(patch.headers.get("access-control-allow-headers")!.toLowerCase(), "content-type")
      assert.strictEqual((yield* preflight(`/v1/webhook_endpoints/${id}/test`, "DELETE")).status, 405)
      assert.strictEqual(
        (yield* preflight("/v1/vendors", "GET")).headers.get("access-control-allow-methods"),
        "GET, HEAD"
      )
    })
  )

  it.effect("never answers a write 304, whatever If-None-Match says; a read still is", () =>
    Effect.gen(function* () {
      const { id } = yield* create()
      const base = yield* BaseUrl
      const request = (method: string, path: string, body?: unknown) =>
        Effect.promise(() =>
          fetch(`${base}${path}`, {
            method,
            headers: {
              authorization: `Bearer ${keys.managerA}`,
              "if-none-match": "*",
              ...(body === undefined ? {} : { "content-type": "application/json" })
            },
            ...(body === undefined ? {} : { body: JSON.stringify(body) })
          })
        )
      const patched = yield* request("PATCH", `/v1/webhook_endpoints/${id}`, { description: "changed" })
      assert.strictEqual(patched.status, 200)
      assert.strictEqual((yield* call("GET", `/v1/webhook_endpoints/${id}`)).body.description, "changed")
      assert.strictEqual((yield* request("POST", `/v1/webhook_endpoints/${id}/rotate_secret`)).status, 200)
      assert.strictEqual((yield* request("GET", `/v1/webhook_endpoints/${id}`)).status, 304)
    })
  )

  it.effect("counts a write against the key's rate limit as a read is counted", () =>
    Effect.gen(function* () {
      const remaining = (answer: Answer) => Number(answer.headers.get("ratelimit-remaining"))
      const read = yield* call("GET", "/v1/webhook_endpoints")
      const write = yield* send("POST", "/v1/webhook_endpoints", newEndpoint)
      const again = yield* call("GET", "/v1/webhook_endpoints")
      assert.strictEqual(write.status, 200)
      assert.strictEqual(remaining(write), remaining(read) - 1)
      assert.strictEqual(remaining(again), remaining(write) - 1)
    })
  )

  it.effect("answers a body that is not the contract's with the documented 400, naming the field", () =>
    Effect.gen(function* () {
      const post = (body: string) => call("POST", "/v1/webhook_endpoints", { body })
      assertError(yield* post("{not json"), 400, "invalid_request_error", "parameter_invalid")
      const tooLarge = yield* post(JSON.stringify({ ...newEndpoint, description: "x".repeat(20_000) }))
      assertError(tooLarge, 400, "invalid_request_error", "parameter_invalid")
      assert.include(tooLarge.body.error.message, "larger than")
      assertError(
        yield* post(JSON.stringify({ event_types: ["receivable.created"] })),
        400,
        "invalid_request_error",
        "parameter_invalid",
        "url"
      )
      assertError(
        yield* post(JSON.stringify({ ...newEndpoint, event_types: ["receivable.deleted"] })),
        400,
        "invalid_request_error",
        "parameter_invalid",
        "event_types"
      )
      assertError(
        yield* post(JSON.stringify({ ...newEndpoint, event_types: [] })),
        400,
        "invalid_request_error",
        "parameter_invalid",
        "event_types"
      )
      assertError(
        yield* post(JSON.stringify({ ...newEndpoint, enabeld: false })),
        400,
        "invalid_request_error",
        "parameter_unknown",
        "enabeld"
      )
      assertError(
        yield* post(JSON.stringify({ ...newEndpoint, url: "https://10.0.0.1/hooks" })),
        400,
        "invalid_request_error",
        "parameter_invalid",
        "url"
      )
      const { id } = yield* create()
      assertError(
        yield* send("POST", `/v1/webhook_endpoints/${id}/replay`, { since: "yesterday" }),
        400,
        "invalid_request_error",
        "parameter_invalid",
        "since"
      )
      assertError(
        yield* send("POST", `/v1/webhook_endpoints/${id}/replay`, {
          since: new Date(Date.now() - 90 * 86_400_000).toISOString()
        }),
        400,
        "invalid_request_error",
        "parameter_invalid",
        "since"
      )
    })
  )
})
