/**
 * The webhooks' request bodies over a real socket, as a client may really send them: a body that
 * is not JSON by its Content-Type is 415 in the documented error shape; bytes that are not UTF-8
 * are refused (400), never stored as U+FFFD; a body that stops arriving is answered 408 when the
 * request deadline passes, the connection closed, and the audit records that same 408. The
 * invalid bytes and the stalled body are written on a raw `node:net` socket.
 */
import { randomBytes } from "node:crypto"
import { assert, layer } from "@effect/vitest"
import { Effect, Layer } from "effect"
import { SqlClient } from "effect/sql"
import { makeApiKey, secretBytes } from "../../core/access/domain/ApiKey.ts"
import { exchange } from "../support/RawHttp.ts"
import { BaseUrl, layerWith } from "../support/TestServer.ts"

const key = makeApiKey("pr", new Uint8Array(secretBytes).fill(0x54))

const setup = Effect.gen(function* () {
  const sql = yield* SqlClient.SqlClient
  const [org] = yield* sql<{ id: string }>`INSERT INTO organizations (name) VALUES ('Bodies') RETURNING id`
  yield* sql`INSERT INTO api_keys (org_id, key_hash, display_start, permissions)
    VALUES (${org!.id}, sha256(convert_to(${key}, 'UTF8')), 'pr_live_bd', '{webhooks}'::text[])`
})

const deadlineSeconds = 1

const TestLayer = Layer.effectDiscard(setup).pipe(
  Layer.provideMerge(
    layerWith({
      settings: {
        // Short, so that a stalled body meets it soon; every other request here takes milliseconds.
        REQUEST_DEADLINE_SECONDS: String(deadlineSeconds),
        WEBHOOK_ALLOWED_HOSTS: "127.0.0.1:1-65535",
        WEBHOOK_SECRET_KEYS: `1:${randomBytes(32).toString("base64")}`
      }
    })
  )
)

interface RawAnswer {
  readonly status: number
  readonly headers: ReadonlyMap<string, string>
  // biome-ignore lint/suspicious/noExplicitAny: JSON bodies are inspected field by field
  readonly body: any
}

/** Writes a request's head and `body` on a fresh connection; reads the answer until the server closes. */
const rawPost = (path: string, body: Uint8Array, options: { readonly contentLength?: number } = {}) =>
  Effect.gen(function* () {
    const base = yield* BaseUrl
    const head =
      `POST ${path} HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer ${key}\r\nContent-Type: application/json\r\n` +
      `Content-Length: ${options.contentLength ?? body.length}\r\nConnection: close\r\n\r\n`
    const received = yield* Effect.promise(() => exchange(base, Buffer.concat([Buffer.from(head), body])))
    const [top = "", text = ""] = received.split("\r\n\r\n", 2)
    const [statusLine = "", ...lines] = top.split("\r\n")
    const headers = new Map(
      lines.map((line) => [line.slice(0, line.indexOf(":")).toLowerCase(), line.slice(line.indexOf(":") + 1).trim()])
    )
    return {
      status: Number(statusLine.split(" ")[1]),
      headers,
      body: text === "" ? null : JSON.parse(Buffer.from(text, "latin1").toString("utf8"))
    } satisfies RawAnswer
  })

const call = (method: string, path: string, options: { readonly body?: string; readonly contentType?: string } = {}) =>
  Effect.gen(function* () {
    const base = yield* BaseUrl
    const response = yield* Effect.promise(() =>
      fetch(`${base}${path}`, {
        method,
        headers: {
          authorization: `Bearer ${key}`,
          ...(options.contentType === undefined ? {} : { "content-type": options.contentType })
        },
        ...(options.body === undefined ? {} : { body: options.body })
      })
    )
    const text = yield* Effect.promise(() => response.text())
    // biome-ignore lint/suspicious/noExplicitAny: JSON bodies are inspected field by field
    const body: any = JSON.parse(text)
    return { status: response.status, headers: response.headers, body, text }
  })

const auditStatus = (requestId: string) =>
  Effect.flatMap(
    SqlClient.SqlClient,
    (sql) => sql<{ status: number }>`SELECT status FROM audit_log WHERE request_id = ${requestId}`
  ).pipe(
    Effect.orDie,
    Effect.map((rows) => rows.map((row) => row.status))
  )

const newEndpoint = { url: "http://127.0.0.1:9/receive", event_types: ["receivable.created"] }

layer(TestLayer, { timeout: 60_000, excludeTestServices: true })("the webhooks' request bodies", (it) => {
  it.effect("answers a body of another Content-Type 415 in the documented error shape, on every write", () =>
    Effect.gen(function* () {
      const created = yield* call("POST", "/v1/webhook_endpoints", {
        body: JSON.stringify(newEndpoint),
        contentType: "application/json; charset=utf-8"
      })
      assert.strictEqual(created.status, 200, created.text)
      const writes = [
        ["POST", "/v1/webhook_endpoints", newEndpoint],
        ["PATCH", `/v1/webhook_endpoints/${created.body.id}`, { enabled: false }],
        ["POST", `/v1/webhook_endpoints/${created.body.id}/replay`, { since: new Date().toISOString() }]
      ] as const
      for (const [method, path, body] of writes) {
        for (const contentType of ["text/plain", "application/x-www-form-urlencoded", "application/jsonx"]) {
          const answer = yield* call(method, path, { body: JSON.stringify(body), contentType })
          assert.strictEqual(answer.status, 415, `${method} ${path} ${contentType}: ${answer.text}`)
          assert.match(answer.headers.get("content-type") ?? "", /^application\/json/)
          assert.deepInclude(answer.body.error, { type: "invalid_request_error", code: "content_type_unsupported" })
          assert.include(answer.body.error.message, "application/json")
          assert.deepStrictEqual(yield* auditStatus(answer.headers.get("request-id")!), [415])
        }
      }
      // Refused before anything changed.
      const still = yield* call("GET", `/v1/webhook_endpoints/${created.body.id}`)
      assert.strictEqual(still.body.enabled, true)
    })
  )

  it.effect("refuses a body whose bytes are not UTF-8 with 400, and stores UTF-8 exactly as sent", () =>
    Effect.gen(function* () {
      const withDescription = (description: Buffer) =>
        Buffer.concat([
          Buffer.from(`{"url":"${newEndpoint.url}","event_types":["receivable.created"],"description":"`),
          description,
          Buffer.from('"}')
        ])
      const before = (yield* call("GET", "/v1/webhook_endpoints?limit=500")).body.data.length
      // A lone continuation byte, an overlong encoding, a truncated sequence, a UTF-16 surrogate.
      for (const bytes of [[0x80], [0xc0, 0xaf], [0xe2, 0x82], [0xed, 0xa0, 0x80], [0xff, 0xfe]]) {
        const answer = yield* rawPost("/v1/webhook_endpoints", withDescription(Buffer.from([0x61, ...bytes])))
        assert.strictEqual(answer.status, 400, JSON.stringify(answer.body))
        assert.deepInclude(answer.body.error, { type: "invalid_request_error", code: "parameter_invalid" })
        assert.include(answer.body.error.message, "UTF-8")
        assert.deepStrictEqual(yield* auditStatus(answer.headers.get("request-id")!), [400])
      }
      assert.strictEqual((yield* call("GET", "/v1/webhook_endpoints?limit=500")).body.data.length, before)
      const text = "Zahlungen é ✓ 🧾"
      const stored = yield* rawPost("/v1/webhook_endpoints", withDescription(Buffer.from(text, "utf8")))
      assert.strictEqual(stored.status, 200, JSON.stringify(stored.body))
      assert.strictEqual(stored.body.description, text)
    })
  )

  it.effect("answers a body that stops arriving 408 at the deadline, closes the connection, and audits 408", () =>
    Effect.gen(function* () {
      // The head promises 200 bytes; 7 arrive, then nothing until the server answers and closes.
      const answer = yield* rawPost("/v1/webhook_endpoints", Buffer.from('{"url":'), { contentLength: 200 })
      assert.strictEqual(answer.status, 408, JSON.stringify(answer.body))
      assert.deepInclude(answer.body.error, { type: "invalid_request_error", code: "request_timeout" })
      assert.include(answer.body.error.message, `${deadlineSeconds} s`)
      assert.strictEqual(answer.headers.get("connection"), "close")
      assert.notProperty(Object.fromEntries(answer.headers), "retry-after")
      assert.deepStrictEqual(yield* auditStatus(answer.headers.get("request-id")!), [408])
      // The service itself is not slow: a whole body is answered at once.
      const whole = yield* rawPost("/v1/webhook_endpoints", Buffer.from(JSON.stringify(newEndpoint)))
      assert.strictEqual(whole.status, 200, JSON.stringify(whole.body))
    })
  )
})
