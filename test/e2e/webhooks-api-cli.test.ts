/**
 * The operators' side of webhooks, as they run it (`node app/cli.ts ...`) against the test
 * database beside a running server: `key create --permission webhooks` makes a key the webhooks
 * API accepts where a plain key gets 403, and `webhook list|create|disable|enable|delete|test|
 * replay|deliveries|delivery` manage an organization's endpoints, the secret printed by `create`
 * only; `delivery` shows each attempt with what made it.
 */
import { randomBytes } from "node:crypto"
import { assert, layer } from "@effect/vitest"
import { Effect } from "effect"
import { jsonOf, runCli } from "../support/Cli.ts"
import { BaseUrl, layer as serverLayer } from "../support/TestServer.ts"

// The server's services and the CLI (a child of this worker) read these from the environment:
// they share the master key that seals endpoint secrets, and may reach loopback.
process.env.WEBHOOK_ALLOWED_HOSTS = "127.0.0.1:1-65535"
process.env.WEBHOOK_SECRET_KEYS = `1:${randomBytes(32).toString("base64")}`

const cli = (...args: ReadonlyArray<string>) => runCli(args)

const listEndpoints = (key: string) =>
  Effect.flatMap(BaseUrl, (base) =>
    Effect.promise(() => fetch(`${base}/v1/webhook_endpoints`, { headers: { authorization: `Bearer ${key}` } }))
  )

layer(serverLayer, { timeout: 240_000, excludeTestServices: true })("webhooks for operators", (it) => {
  it.effect("a key made with --permission webhooks manages endpoints; a key made without gets 403", () =>
    Effect.gen(function* () {
      const { id: org } = jsonOf<{ id: string }>(yield* cli("org", "create", "--name", "Hooked", "--json"))
      const plain = jsonOf<{ key: string; permissions: Array<string> }>(
        yield* cli("key", "create", "--org", org, "--name", "reader", "--json")
      )
      const manager = jsonOf<{ key: string; permissions: Array<string> }>(
        yield* cli("key", "create", "--org", org, "--name", "hooks", "--permission", "webhooks", "--json")
      )
      assert.deepStrictEqual([plain.permissions, manager.permissions], [[], ["webhooks"]])
      assert.strictEqual((yield* listEndpoints(plain.key)).status, 403)
      assert.strictEqual((yield* listEndpoints(manager.key)).status, 200)
      const listed = (yield* cli("key", "list", "--org", org)).stdout
      assert.match(listed, /reader {2}read-only/)
      assert.match(listed, /hooks {2}read, webhooks/)
      const refused = yield* cli("key", "create", "--org", org, "--permission", "everything")
      assert.strictEqual(refused.code, 1)
    })
  )

  it.effect("creates, lists, disables, enables, tests, replays, lists deliveries and deletes an endpoint", () =>
    Effect.gen(function* () {
      const { id: org } = jsonOf<{ id: string }>(yield* cli("org", "create", "--name", "Operated", "--json"))
      // Nothing listens there: the test's attempt finds no connection.
      const url = "http://127.0.0.1:9/hooks"
      const created = yield* cli(
        "webhook",
        "create",
        "--org",
        org,
        "--url",
        url,
        "--event-type",
        "receivable.created",
        "--description",
        "ledger"
      )
      assert.strictEqual(created.code, 0, created.stderr)
      const [secret] = created.stdout.split("\n")
      assert.match(secret!, /^whsec_[A-Za-z0-9+/]+=*$/)
      assert.match(created.stdout, /shown only this once/)
      const [endpoint] = jsonOf<Array<{ id: string; enabled: boolean; url: string }>>(
        yield* cli("webhook", "list", "--org", org, "--json")
      )
      assert.deepInclude(endpoint!, { url, enabled: true })
      assert.notInclude((yield* cli("webhook", "list", "--org", org)).stdout, secret!)
      assert.notInclude((yield* cli("webhook", "list", "--org", org, "--json")).stdout, secret!)

      const disabled = jsonOf<{ enabled: boolean; disabled_reason: string }>(
        yield* cli("webhook", "disable", endpoint!.id, "--org", org, "--json")
      )
      assert.deepStrictEqual([disabled.enabled, disabled.disabled_reason], [false, "manual"])
      const refusedTest = yield* cli("webhook", "test", endpoint!.id, "--org", org)
      assert.deepStrictEqual([refusedTest.code, refusedTest.stderr.includes("is disabled")], [1, true])
      assert.strictEqual(
        jsonOf<{ enabled: boolean }>(yield* cli("webhook", "enable", endpoint!.id, "--org", org, "--json")).enabled,
        true
      )

      const tested = jsonOf<{ id: string; event_type: string; attempt: { outcome: string } }>(
        yield* cli("webhook", "test", endpoint!.id, "--org", org, "--json")
      )
      assert.deepStrictEqual([tested.event_type, tested.attempt.outcome], ["webhook.test", "connection_failed"])
      const deliveries = jsonOf<Array<{ event_type: string }>>(
        yield* cli("webhook", "deliveries", endpoint!.id, "--org", org, "--json")
      )
      assert.deepStrictEqual(
        deliveries.map((d) => d.event_type),
        ["webhook.test"]
      )
      // One delivery with its attempts, each with what made it.
      const detail = jsonOf<{ delivery: { id: string }; attempts: Array<{ trigger: string; outcome: string }> }>(
        yield* cli("webhook", "delivery", tested.id, "--org", org, "--json")
      )
      assert.deepStrictEqual(
        [detail.delivery.id, detail.attempts.map((a) => [a.trigger, a.outcome])],
        [tested.id, [["test", "connection_failed"]]]
      )
      assert.match(
        (yield* cli("webhook", "delivery", tested.id, "--org", org)).stdout,
        /\n {2}\S+ {2}test {2}connection_failed/
      )
      const unknown = yield* cli("webhook", "delivery", "wd_00000000000000000000000000000000", "--org", org)
      assert.strictEqual(unknown.code, 1)
      assert.match(unknown.stderr, /no webhook delivery with id "wd_0+" in that organization/)

      const replayed = yield* cli(
        "webhook",
        "replay",
        endpoint!.id,
        "--org",
        org,
        "--since",
        new Date(Date.now() - 3_600_000).toISOString(),
        "--json"
      )
      assert.deepStrictEqual(jsonOf(replayed), { queued: 0 })
      const tooOld = yield* cli("webhook", "replay", endpoint!.id, "--org", org, "--since", "2020-01-01T00:00:00Z")
      assert.strictEqual(tooOld.code, 1)
      assert.match(tooOld.stderr, /^partner-receivables: no replay: since is before the oldest event kept/)

      const deleted = yield* cli("webhook", "delete", endpoint!.id, "--org", org)
      assert.strictEqual(deleted.code, 0, deleted.stderr)
      assert.match((yield* cli("webhook", "list", "--org", org)).stdout, /no webhook endpoints/)
      const gone = yield* cli("webhook", "delete", endpoint!.id, "--org", org)
      assert.deepStrictEqual(
        [gone.code, gone.stderr],
        [1, `partner-receivables: no webhook endpoint with id "${endpoint!.id}" in that organization\n`]
      )
      const otherOrg = jsonOf<{ id: string }>(yield* cli("org", "create", "--name", "Other", "--json")).id
      assert.strictEqual((yield* cli("webhook", "create", "--org", otherOrg, "--url", "https://10.0.0.1/in")).code, 1)
    })
  )
})
