/**
 * An organization's bounds on what its replays queue, over a real socket and a real PostgreSQL,
 * wired as the app wires them (here 100 deliveries waiting, 2 replays in flight, 75 events a
 * replay): replays at once past the deliveries waiting are refused with 429 and `Retry-After` in
 * the documented error shape, queuing nothing, and exactly one passes; a replay past the replays
 * in flight is refused the same way; a window holding too many events is 400; another
 * organization is not held by them; the dashboard's replay form says why.
 */
import { randomBytes } from "node:crypto"
import { assert, layer } from "@effect/vitest"
import { Effect, Layer } from "effect"
import { SqlClient } from "effect/sql"
import { AccountsLive } from "../../app/Layers.ts"
import { makeApiKey, secretBytes } from "../../core/access/domain/ApiKey.ts"
import type { Pair } from "../../core/receivables/ports/PairStore.ts"
import { PairStoreHarness } from "../contracts/PairStore.harness.ts"
import * as PostgresHarness from "../contracts/PairStore.postgresHarness.ts"
import { run, signedIn } from "../support/DashboardClient.ts"
import { BaseUrl, serverLayer } from "../support/TestServer.ts"
import { syncEvents } from "../webhooks/support/Sync.ts"

const maxWaiting = 100
const maxReplays = 2

const TestLayer = Layer.mergeAll(
  serverLayer({
    dashboard: true,
    settings: {
      WEBHOOK_MAX_WAITING_PER_ORG: String(maxWaiting),
      WEBHOOK_MAX_REPLAYS_PER_ORG: String(maxReplays),
      WEBHOOK_MAX_REPLAY_EVENTS: "75",
      WEBHOOK_ALLOWED_HOSTS: "127.0.0.1:1-65535",
      WEBHOOK_SECRET_KEYS: `1:${randomBytes(32).toString("base64")}`
    }
  }),
  AccountsLive
).pipe(Layer.provideMerge(PostgresHarness.layer))

// An address the service may send to (loopback is allowed to it); nothing listens there, and no
// worker runs beside this server: what a replay queues waits.
const endpointBody = JSON.stringify({ url: "http://127.0.0.1:9/receive", event_types: ["receivable.created"] })

const waitingMessage = `This replay would leave your organization more than ${maxWaiting} webhook deliveries waiting, the most it may have: wait until more of them are delivered, or replay a shorter window.`
const replaysMessage = `Your organization has ${maxReplays} replays in flight, the most it may have: wait until their deliveries have been attempted, then replay again.`

/** A new organization (its pair, to sync events) with a key that may manage its webhooks. */
const organizationWithKey = (seed: number) =>
  Effect.gen(function* () {
    const sql = yield* SqlClient.SqlClient
    const pair: Pair = yield* (yield* PairStoreHarness).addPair({ dueInSeconds: 3600 })
    const key = makeApiKey("pr", new Uint8Array(secretBytes).fill(seed))
    yield* sql`INSERT INTO api_keys (org_id, key_hash, display_start, permissions)
      VALUES (${pair.orgId}, sha256(convert_to(${key}, 'UTF8')), 'pr_live_wh', '{webhooks}'::text[])`
    return { pair, key }
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
    return {
      status: response.status,
      retryAfter: response.headers.get("retry-after"),
      text,
      // biome-ignore lint/suspicious/noExplicitAny: JSON bodies are inspected field by field
      body: (text === "" ? null : JSON.parse(text)) as any
    }
  })

const newEndpoint = (key: string) =>
  Effect.map(call(key, "POST", "/v1/webhook_endpoints", endpointBody), (answer) => answer.body.id as string)

const replay = (key: string, endpoint: string, since: Date) =>
  call(key, "POST", `/v1/webhook_endpoints/${endpoint}/replay`, JSON.stringify({ since: since.toISOString() }))

const waitingOf = (key: string, endpoint: string) =>
  Effect.map(
    call(key, "GET", `/v1/webhook_endpoints/${endpoint}/deliveries?status=pending&limit=100`),
    (answer) => answer.body.data.length as number
  )

const refusedWith = (message: string) => ({ error: { type: "rate_limit_error", code: "rate_limited", message } })

layer(TestLayer, { timeout: 60_000, excludeTestServices: true })("an organization's bounds on replays", (it) => {
  it.effect("replays past its deliveries waiting or replays in flight are 429 and queue nothing", () =>
    Effect.gen(function* () {
      const { pair, key } = yield* organizationWithKey(0x71)
      const start = new Date(Date.now() - 60_000)
      yield* syncEvents(pair, 60)
      const later = new Date()
      yield* syncEvents(pair, 10)
      const endpoints = yield* Effect.forEach(Array.from({ length: 4 }), () => newEndpoint(key))

      // Four replays of 70 events at once against a bound of 100: one passes, whichever.
      const answers = yield* Effect.all(
        endpoints.map((endpoint) => replay(key, endpoint, start)),
        { concurrency: "unbounded" }
      )
      const passed = answers.filter((answer) => answer.status === 200)
      assert.lengthOf(passed, 1, answers.map((answer) => answer.text).join("\n"))
      assert.deepStrictEqual(passed[0]!.body, { object: "webhook_replay", queued: 70 })
      for (const refused of answers.filter((answer) => answer.status !== 200)) {
        assert.strictEqual(refused.status, 429, refused.text)
        assert.strictEqual(refused.retryAfter, "60")
        assert.deepStrictEqual(refused.body, refusedWith(waitingMessage))
      }
      const waiting = yield* Effect.forEach(endpoints, (endpoint) => waitingOf(key, endpoint))
      assert.deepStrictEqual(waiting.toSorted(), [0, 0, 0, 70])

      // A shorter window fits; a third replay in flight does not.
      const idle = endpoints.filter((_, i) => waiting[i] === 0)
      assert.deepStrictEqual((yield* replay(key, idle[0]!, later)).body, { object: "webhook_replay", queued: 10 })
      const third = yield* replay(key, idle[1]!, later)
      assert.strictEqual(third.status, 429, third.text)
      assert.strictEqual(third.retryAfter, "60")
      assert.deepStrictEqual(third.body, refusedWith(replaysMessage))
      assert.strictEqual(yield* waitingOf(key, idle[1]!), 0)
    })
  )

  it.effect("a window of more events than one replay sends is 400; another organization is not held", () =>
    Effect.gen(function* () {
      const { pair, key } = yield* organizationWithKey(0x72)
      const start = new Date(Date.now() - 60_000)
      yield* syncEvents(pair, 80)
      const endpoint = yield* newEndpoint(key)
      const wide = yield* replay(key, endpoint, start)
      assert.strictEqual(wide.status, 400, wide.text)
      assert.deepStrictEqual(wide.body, {
        error: {
          type: "invalid_request_error",
          code: "parameter_invalid",
          param: "since",
          message: "Invalid replay window: the window holds more than 75 events: replay it in parts."
        }
      })
      const later = new Date()
      yield* syncEvents(pair, 5)
      assert.deepStrictEqual((yield* replay(key, endpoint, later)).body, { object: "webhook_replay", queued: 5 })
    })
  )

  it.effect("the dashboard's replay form says why a replay is refused", () =>
    Effect.gen(function* () {
      const base = yield* BaseUrl
      const { pair, key } = yield* organizationWithKey(0x73)
      const start = new Date(Date.now() - 60_000)
      yield* syncEvents(pair, 60)
      const [first, second] = yield* Effect.forEach(Array.from({ length: 2 }), () => newEndpoint(key))
      assert.strictEqual((yield* replay(key, first!, start)).status, 200)
      const admin = yield* signedIn(base, pair.orgId, "admin")
      const refused = yield* run(() =>
        admin.client.post(`/dashboard/webhooks/${second}/replay`, {
          csrf: admin.csrf,
          since: start.toISOString(),
          until: ""
        })
      )
      assert.strictEqual(refused.status, 429)
      assert.include(refused.body, `Not replayed: ${waitingMessage}`)
    })
  )
})
