/**
 * The client over a fake `fetch`: requests as the contract spells them, retries that honour the
 * API's waits, errors typed by its codes and never holding the key, aborts, and iteration over
 * every page. Waits go through an injected clock, so nothing here sleeps.
 */
import { inspect } from "node:util"
import { assert, describe, it } from "@effect/vitest"
import fc from "fast-check"
import {
  ApiError,
  AuthenticationError,
  type Clock,
  ConnectionError,
  InvalidRequestError,
  PartnerReceivables,
  RateLimitError
} from "../../client/src/mod.ts"
import { errorAnswer, FakeApi } from "./FakeApi.ts"

const apiKey = `pr_live_${"k".repeat(39)}`

const setup = (options: { readonly retry?: false; readonly timeoutMs?: number } = {}) => {
  const api = new FakeApi()
  const waits: Array<number> = []
  const clock: Clock = { now: () => Date.parse("2026-11-01T00:00:00Z"), sleep: async (ms) => void waits.push(ms) }
  const client = new PartnerReceivables({ apiKey, baseUrl: "https://api.test/", fetch: api.fetch, clock, ...options })
  return { api, client, waits }
}

const failure = async (promise: Promise<unknown>) =>
  promise.then(
    () => assert.fail("expected a failure"),
    (error: unknown) => error
  )

describe("construction", () => {
  it("refuses a missing key and a base URL that is not one, naming the option but never a key", () => {
    const fetch = new FakeApi().fetch
    for (const missing of [undefined, "", "  "]) {
      assert.throws(
        () => new PartnerReceivables({ apiKey: missing as unknown as string, baseUrl: "https://api.test", fetch }),
        TypeError,
        /apiKey is missing/
      )
    }
    for (const baseUrl of ["https://api.test/v1", "https://api.test/v1/", "api.test", ""]) {
      assert.throws(() => new PartnerReceivables({ apiKey, baseUrl, fetch }), TypeError, /baseUrl/)
    }
    try {
      new PartnerReceivables({ apiKey, baseUrl: "https://api.test/v1", fetch })
    } catch (error) {
      assert.notInclude(String(error), apiKey)
    }
  })

  it("keeps a base URL's own path, as behind a proxy's prefix", async () => {
    const api = new FakeApi()
    const seen: Array<string> = []
    const fetch: typeof globalThis.fetch = (input, init) => {
      seen.push(String(input))
      return api.fetch(String(input).replace("/prefix", ""), init)
    }
    await new PartnerReceivables({ apiKey, baseUrl: "https://api.test/prefix/", fetch }).receivables.list()
    assert.deepStrictEqual(seen, ["https://api.test/prefix/v1/receivables"])
  })
})

describe("requests", () => {
  it("send the key as a bearer token, and parameters as the contract names them", async () => {
    const { api, client } = setup()
    api.create(3)
    const since = new Date("2026-10-01T00:00:00Z")
    await client.receivables.list({ verified_since: since, expand: ["history", "metadata"], limit: 2 })
    await client.receivables.get("rcv_00000000000000000000000000000001", { history_limit: 0 })
    await client.events.list({ after: 2, type: ["receivable.created", "receivable.updated"] })
    await failure(client.events.get("evt/../x"))
    assert.deepStrictEqual(
      api.requests.map((url) => `${url.pathname}${url.search}`),
      [
        "/v1/receivables?verified_since=2026-10-01T00%3A00%3A00.000Z&expand%5B%5D=history&expand%5B%5D=metadata&limit=2",
        "/v1/receivables/rcv_00000000000000000000000000000001?history_limit=0",
        "/v1/events?after=2&type=receivable.created&type=receivable.updated",
        "/v1/events/evt%2F..%2Fx"
      ]
    )
    assert.deepStrictEqual(new Set(api.authorizations), new Set([`Bearer ${apiKey}`]))
  })

  it("iterate every page by starting_after, keeping the filters", async () => {
    const { api, client } = setup()
    api.create(7)
    const seen: Array<string> = []
    for await (const receivable of client.receivables.iterate({ status: "PENDING", limit: 3 })) seen.push(receivable.id)
    assert.deepStrictEqual(
      seen,
      api.receivables.map((r) => r.id)
    )
    assert.deepStrictEqual(
      api.requests.map((url) => url.searchParams.get("starting_after")),
      [null, api.receivables[2]!.id, api.receivables[5]!.id]
    )
    assert.isTrue(api.requests.every((url) => url.searchParams.get("status") === "PENDING"))
  })

  it("iterate the events feed from after until it is caught up", async () => {
    const { api, client } = setup()
    api.create(5)
    const sequences: Array<number> = []
    for await (const event of client.events.iterate({ after: 1, limit: 2 })) sequences.push(event.sequence)
    assert.deepStrictEqual(sequences, [2, 3, 4, 5])
  })
})

describe("retries", () => {
  it("wait what Retry-After asks on a 429, then succeed", async () => {
    const { api, client, waits } = setup()
    api.scripted.push(() => errorAnswer(429, "rate_limit_error", "rate_limited", { "retry-after": "2" }))
    const page = await client.receivables.list()
    assert.strictEqual(page.object, "list")
    assert.strictEqual(waits.length, 1)
    assert.isAtLeast(waits[0]!, 2000)
  })

  it("wait for RateLimit-Reset on a 429 without Retry-After, and back off on 503", async () => {
    const { api, client, waits } = setup()
    api.scripted.push(
      () => errorAnswer(429, "rate_limit_error", "rate_limited", { "ratelimit-reset": "3" }),
      () => errorAnswer(503, "api_error", "service_unavailable")
    )
    await client.receivables.list()
    assert.isAtLeast(waits[0]!, 3000)
    assert.isAtMost(waits[1]!, 1000)
  })

  it("stop after the configured count and throw the last answer's error, with its wait", async () => {
    const { api, client, waits } = setup()
    for (let i = 0; i < 4; i++) {
      api.scripted.push(() => errorAnswer(429, "rate_limit_error", "rate_limited", { "retry-after": "1" }))
    }
    const error = await failure(client.receivables.list())
    assert.instanceOf(error, RateLimitError)
    assert.strictEqual(error.status, 429)
    assert.strictEqual(error.retryAfter, 1)
    assert.strictEqual(error.requestId, "req_429")
    assert.strictEqual(waits.length, 3)
    assert.strictEqual(api.requests.length, 4)
  })

  it("throw at once when the API asks for a longer wait than allowed", async () => {
    const { api, client } = setup()
    api.scripted.push(() => errorAnswer(429, "rate_limit_error", "rate_limited", { "retry-after": "3600" }))
    const error = await failure(client.receivables.list())
    assert.instanceOf(error, RateLimitError)
    assert.strictEqual(error.retryAfter, 3600)
    assert.strictEqual(api.requests.length, 1)
  })

  it("never retry other 4xx, nor a 500", async () => {
    for (const [status, type, code] of [
      [400, "invalid_request_error", "parameter_invalid"],
      [401, "authentication_error", "api_key_invalid"],
      [404, "invalid_request_error", "resource_missing"],
      [405, "invalid_request_error", "method_not_allowed"],
      [500, "api_error", "internal_error"]
    ] as const) {
      const { api, client, waits } = setup()
      api.scripted.push(() => errorAnswer(status, type, code))
      const error = await failure(client.receivables.list())
      assert.strictEqual((error as { code: string }).code, code)
      assert.strictEqual(api.requests.length, 1, code)
      assert.deepStrictEqual(waits, [])
    }
  })

  it("retry a request that got no answer, then report the connection failure", async () => {
    const { api, client } = setup()
    for (let i = 0; i < 4; i++) {
      api.scripted.push(() => Promise.reject(new TypeError("fetch failed", { cause: new Error("ECONNREFUSED") })))
    }
    const error = await failure(client.receivables.list())
    assert.instanceOf(error, ConnectionError)
    assert.strictEqual(error.code, "connection_failed")
    assert.match(error.message, /GET \/v1\/receivables failed .*ECONNREFUSED/)
    assert.strictEqual(api.requests.length, 4)
  })

  it("give up an attempt after timeoutMs", async () => {
    const { api, client } = setup({ retry: false, timeoutMs: 20 })
    // An answer that never comes, until the attempt's deadline aborts it.
    api.scripted.push(
      (init) =>
        new Promise<Response>((_, reject) => init?.signal?.addEventListener("abort", () => reject(init.signal?.reason)))
    )
    const error = await failure(client.receivables.list())
    assert.instanceOf(error, ConnectionError)
    assert.strictEqual(error.code, "timeout")
  })
})

describe("aborting", () => {
  it("rejects with the caller's reason and does not retry", async () => {
    const { api, client } = setup()
    const controller = new AbortController()
    api.scripted.push(
      () =>
        new Promise<Response>((_, reject) => {
          controller.abort(new Error("stop"))
          reject(new DOMException("aborted", "AbortError"))
        })
    )
    const error = await failure(client.receivables.list({}, { signal: controller.signal }))
    assert.strictEqual((error as Error).message, "stop")
    assert.strictEqual(api.requests.length, 1)
  })

  it("sends nothing once aborted", async () => {
    const { api, client } = setup()
    const error = await failure(client.events.list({}, { signal: AbortSignal.abort(new Error("gone")) }))
    assert.strictEqual((error as Error).message, "gone")
    assert.strictEqual(api.requests.length, 0)
  })
})

describe("errors", () => {
  it("are typed by the contract's type and code, with status, param and request id", async () => {
    const { client } = setup()
    const missing = await failure(client.receivables.get("rcv_nope"))
    assert.instanceOf(missing, InvalidRequestError)
    assert.deepInclude(missing, { type: "invalid_request_error", code: "resource_missing", status: 404 })
    assert.strictEqual(missing.requestId, "req_404")
    const { api: api2, client: client2 } = setup()
    api2.scripted.push(() => errorAnswer(401, "authentication_error", "api_key_revoked"))
    const revoked = await failure(client2.vendors.list())
    assert.instanceOf(revoked, AuthenticationError)
    assert.strictEqual(revoked.code, "api_key_revoked")
  })

  it("name an answer that is not the API's, such as a proxy's page", async () => {
    const { api, client } = setup({ retry: false })
    api.scripted.push(() => new Response("<html>Bad Gateway</html>", { status: 502 }))
    const error = await failure(client.debtors.list())
    assert.instanceOf(error, ApiError)
    assert.deepInclude(error, { code: "unexpected_response", status: 502 })
  })

  it("never hold the key, however they are shown", () =>
    fc.assert(
      fc.asyncProperty(
        fc.stringMatching(/^[A-Za-z0-9]{39}$/),
        fc.constantFrom(400, 401, 404, 429, 500, 502, 503, 0),
        async (secret, status) => {
          const key = `pr_live_${secret}`
          const api = new FakeApi()
          const client = new PartnerReceivables({
            apiKey: key,
            baseUrl: "https://api.test",
            fetch: api.fetch,
            retry: false
          })
          api.scripted.push(() =>
            status === 0
              ? Promise.reject(new TypeError(`fetch failed`))
              : errorAnswer(status, "api_error", "internal_error", { "retry-after": "1" })
          )
          const error = await failure(client.receivables.list({ vendor_id: "x" }))
          for (const shown of [
            String(error),
            inspect(error, { depth: 5 }),
            JSON.stringify(error),
            (error as Error).stack
          ]) {
            assert.notInclude(shown ?? "", secret)
          }
          assert.notInclude(inspect(client, { depth: 5 }), secret)
        }
      ),
      { numRuns: 30 }
    ))
})
