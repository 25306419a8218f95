/**
 * The SDK's `webhooks.*` over a recording `fetch`: each method sends the method, path and JSON
 * body the contract defines; a write is tried again after a 429 only (any other failure may have
 * taken effect); a 403 is a `PermissionError`. Waits go through an injected clock.
 */
import { assert, describe, it } from "@effect/vitest"
import { type Clock, InvalidRequestError, PartnerReceivables, PermissionError } from "../../client/src/mod.ts"

interface Sent {
  readonly method: string
  readonly url: string
  readonly body: unknown
  readonly contentType: string | null
}

const setup = (answers: Array<() => Response> = []) => {
  const sent: Array<Sent> = []
  const fetch = async (input: RequestInfo | URL, init?: RequestInit) => {
    const headers = new Headers(init?.headers)
    sent.push({
      method: init?.method ?? "GET",
      url: String(input),
      body: init?.body === undefined ? undefined : JSON.parse(String(init.body)),
      contentType: headers.get("content-type")
    })
    return answers.shift()?.() ?? Response.json({ ok: true })
  }
  const clock: Clock = { now: () => 0, sleep: async () => {} }
  const client = new PartnerReceivables({
    apiKey: `pr_live_${"k".repeat(39)}`,
    baseUrl: "https://api.test",
    fetch,
    clock
  })
  return { client, sent }
}

const refusal = (status: number, type: string, code: string) => () =>
  Response.json({ error: { type, code, message: code } }, { status, headers: { "retry-after": "1" } })

describe("webhooks.*", () => {
  it("sends each call as the contract spells it", async () => {
    const { client, sent } = setup()
    const id = "we_0123456789abcdef0123456789abcdef"
    await client.webhooks.create({ url: "https://example.com/in", event_types: ["receivable.created"] })
    await client.webhooks.list({ limit: 10, starting_after: id })
    await client.webhooks.get(id)
    await client.webhooks.update(id, { enabled: false })
    await client.webhooks.delete(id)
    await client.webhooks.rotateSecret(id)
    await client.webhooks.test(id)
    await client.webhooks.replay(id, { since: "2026-11-20T00:00:00Z" })
    await client.webhooks.deliveries(id, { status: "failed", event_type: "webhook.test" })
    await client.webhooks.delivery("wd_1")
    await client.webhooks.retry("wd_1")
    const base = "https://api.test/v1"
    assert.deepStrictEqual(
      sent.map(({ method, url, body }) => [method, url, body]),
      [
        ["POST", `${base}/webhook_endpoints`, { url: "https://example.com/in", event_types: ["receivable.created"] }],
        ["GET", `${base}/webhook_endpoints?limit=10&starting_after=${id}`, undefined],
        ["GET", `${base}/webhook_endpoints/${id}`, undefined],
        ["PATCH", `${base}/webhook_endpoints/${id}`, { enabled: false }],
        ["DELETE", `${base}/webhook_endpoints/${id}`, undefined],
        ["POST", `${base}/webhook_endpoints/${id}/rotate_secret`, undefined],
        ["POST", `${base}/webhook_endpoints/${id}/test`, undefined],
        ["POST", `${base}/webhook_endpoints/${id}/replay`, { since: "2026-11-20T00:00:00Z" }],
        ["GET", `${base}/webhook_endpoints/${id}/deliveries?status=failed&event_type=webhook.test`, undefined],
        ["GET", `${base}/webhook_deliveries/wd_1`, undefined],
        ["POST", `${base}/webhook_deliveries/wd_1/retry`, undefined]
      ]
    )
    for (const { body, contentType } of sent) {
      assert.strictEqual(contentType, body === undefined ? null : "application/json")
    }
  })

  it("tries a write again after a 429, never after a 503 or a dropped connection; a read after both", async () => {
    const limited = setup([refusal(429, "rate_limit_error", "rate_limited")])
    await limited.client.webhooks.test("we_1")
    assert.lengthOf(limited.sent, 2)

    const unavailable = setup([refusal(503, "api_error", "service_unavailable")])
    const failed = await unavailable.client.webhooks.test("we_1").catch((error: unknown) => error)
    assert.strictEqual((failed as { status: number }).status, 503)
    assert.lengthOf(unavailable.sent, 1)

    const dropped = setup([
      () => {
        throw new TypeError("socket hang up")
      }
    ])
    await dropped.client.webhooks.create({ url: "https://e.com", event_types: ["receivable.updated"] }).catch(() => {})
    assert.lengthOf(dropped.sent, 1)

    const read = setup([refusal(503, "api_error", "service_unavailable")])
    await read.client.webhooks.list()
    assert.lengthOf(read.sent, 2)
  })

  it("throws a PermissionError for a key without the webhooks permission, and does not retry it", async () => {
    const { client, sent } = setup([refusal(403, "permission_error", "permission_denied")])
    const error = await client.webhooks.list().catch((e: unknown) => e)
    assert.instanceOf(error, PermissionError)
    assert.deepInclude(error as PermissionError, { status: 403, code: "permission_denied", type: "permission_error" })
    assert.lengthOf(sent, 1)
    const missing = setup([refusal(404, "invalid_request_error", "resource_missing")])
    assert.instanceOf(await missing.client.webhooks.get("we_x").catch((e: unknown) => e), InvalidRequestError)
  })
})
