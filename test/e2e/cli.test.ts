/**
 * The operator CLI as operators run it (`node app/cli.ts ...`) against the test database:
 * organizations and keys, readable and JSON output, one-line refusals, and a created key that
 * works on the API until it is revoked.
 */
import { assert, layer } from "@effect/vitest"
import { Effect } from "effect"
import { runCli } from "../support/Cli.ts"
import { BaseUrl, layer as serverLayer } from "../support/TestServer.ts"

const cli = (...args: ReadonlyArray<string>) => runCli(args)

const vendors = (key: string) =>
  Effect.flatMap(BaseUrl, (base) =>
    Effect.promise(() => fetch(`${base}/v1/vendors`, { headers: { authorization: `Bearer ${key}` } }))
  )

layer(serverLayer, { timeout: 120_000, excludeTestServices: true })("the operator CLI", (it) => {
  it.effect("creates an organization and a key; the key works until revoked; usage is listed", () =>
    Effect.gen(function* () {
      const org = yield* cli("org", "create", "--name", "Acme Factoring", "--json")
      assert.strictEqual(org.code, 0, org.stderr)
      const { id: orgId, name } = JSON.parse(org.stdout)
      assert.strictEqual(name, "Acme Factoring")
      assert.include((yield* cli("org", "list")).stdout, `${orgId}  Acme Factoring`)

      const created = yield* cli("key", "create", "--org", orgId, "--name", "reporting")
      assert.strictEqual(created.code, 0, created.stderr)
      const key = created.stdout.split("\n")[0]!
      assert.match(key, /^pr_live_[0-9A-Za-z]{39}$/)
      assert.match(created.stdout, /shown only this once/)
      assert.strictEqual((yield* vendors(key)).status, 200)

      const listed = yield* cli("key", "list", "--org", orgId, "--json")
      const [record] = JSON.parse(listed.stdout)
      assert.strictEqual(record.name, "reporting")
      assert.strictEqual(record.display_start, key.slice(0, 12))
      assert.notInclude(listed.stdout, key)
      assert.notInclude((yield* cli("key", "list", "--org", orgId)).stdout, key)

      const revoked = yield* cli("key", "revoke", record.id)
      assert.strictEqual(revoked.code, 0, revoked.stderr)
      const refused = yield* vendors(key)
      assert.strictEqual(refused.status, 401)
      assert.strictEqual(
        ((yield* Effect.promise(() => refused.json())) as { error: { code: string } }).error.code,
        "api_key_revoked"
      )

      const usage = yield* cli("key", "usage", record.id, "--json")
      assert.strictEqual(usage.code, 0, usage.stderr)
      assert.strictEqual(JSON.parse(usage.stdout).id, record.id)
    })
  )

  it.effect("refuses a key past MAX_LIVE_KEYS_PER_ORGANIZATION, naming the limit; a revoked key frees its place", () =>
    Effect.gen(function* () {
      const { id: orgId } = JSON.parse((yield* cli("org", "create", "--name", "Many Keys", "--json")).stdout)
      const capped = (...args: ReadonlyArray<string>) => runCli(args, { MAX_LIVE_KEYS_PER_ORGANIZATION: "2" })
      const keyIds: Array<string> = []
      for (const name of ["one", "two"]) {
        const created = yield* capped("key", "create", "--org", orgId, "--name", name, "--json")
        assert.strictEqual(created.code, 0, created.stderr)
        keyIds.push(JSON.parse(created.stdout).id)
      }
      const refused = yield* capped("key", "create", "--org", orgId, "--name", "three")
      assert.deepStrictEqual(
        [refused.code, refused.stdout, refused.stderr],
        [
          1,
          "",
          "partner-receivables: no key created: the organization already has 2 live keys, the most it may have (MAX_LIVE_KEYS_PER_ORGANIZATION); revoke one first\n"
        ]
      )
      assert.strictEqual((yield* cli("key", "revoke", keyIds[0]!)).code, 0)
      assert.strictEqual((yield* capped("key", "create", "--org", orgId, "--name", "three")).code, 0)
    })
  )

  it.effect("sets an organization's own rate limit, which its keys meet together: 429 naming the organization", () =>
    Effect.gen(function* () {
      const { id: orgId } = JSON.parse((yield* cli("org", "create", "--name", "Limited", "--json")).stdout)
      const key = (yield* cli("key", "create", "--org", orgId)).stdout.split("\n")[0]!
      const other = (yield* cli("key", "create", "--org", orgId)).stdout.split("\n")[0]!
      const half = yield* cli("org", "set-limits", orgId, "--burst", "2")
      assert.deepStrictEqual(
        [half.code, half.stderr],
        [
          1,
          "partner-receivables: give both --per-second and --burst, or neither to return to ORG_RATE_LIMIT_PER_SECOND and ORG_RATE_LIMIT_BURST\n"
        ]
      )
      const zero = yield* cli("org", "set-limits", orgId, "--per-second", "0", "--burst", "2")
      assert.match(zero.stderr, /the rate per second must be a number above 0/)
      const set = yield* cli("org", "set-limits", orgId, "--per-second", "0.001", "--burst", "2", "--json")
      assert.deepStrictEqual(JSON.parse(set.stdout).rate_limit, { per_second: 0.001, burst: 2 })
      assert.include((yield* cli("org", "list")).stdout, `${orgId}  Limited  rate limit 0.001/s, burst 2`)

      const first = yield* vendors(key)
      assert.deepStrictEqual(
        [first.status, first.headers.get("ratelimit-limit"), first.headers.get("ratelimit-remaining")],
        [200, "2", "1"]
      )
      assert.strictEqual((yield* vendors(other)).status, 200)
      const refused = yield* vendors(other)
      assert.deepStrictEqual([refused.status, refused.headers.get("retry-after")], [429, "1000"])
      const { error } = (yield* Effect.promise(() => refused.json())) as { error: { code: string; message: string } }
      assert.strictEqual(error.code, "rate_limited")
      assert.match(error.message, /^Too many requests of this organization, all its keys together/)

      const back = yield* cli("org", "set-limits", orgId, "--json")
      assert.strictEqual(JSON.parse(back.stdout).rate_limit, null)
    })
  )

  it.effect("refuses unknown ids and bad arguments with one line and exit code 1", () =>
    Effect.gen(function* () {
      for (const [args, message] of [
        [
          ["key", "create", "--org", "2cbcf9e4-b72f-4f73-93cd-ba5b4e67cc48"],
          /^partner-receivables: no organization with id "2cbcf9e4-/
        ],
        [["key", "list", "--org", "not-an-id"], /^partner-receivables: no organization with id "not-an-id"/],
        [["key", "revoke", "nope"], /^partner-receivables: no API key with id "nope"/],
        [["key", "usage", "00000000-0000-4000-8000-000000000000"], /^partner-receivables: no API key with id/]
      ] as const) {
        const answer = yield* cli(...args)
        assert.strictEqual(answer.code, 1)
        assert.strictEqual(answer.stderr.trim().split("\n").length, 1, answer.stderr)
        assert.match(answer.stderr, message)
      }
      const missing = yield* cli("key", "create")
      assert.strictEqual(missing.code, 1)
      assert.match(missing.stdout + missing.stderr, /Missing required flag: --org/)
    })
  )

  it.effect("manages vendors, debtors and integrations, and syncs a pair now", () =>
    Effect.gen(function* () {
      const json = <A>(answer: { code: number | null; stdout: string; stderr: string }): A => {
        assert.strictEqual(answer.code, 0, answer.stderr)
        return JSON.parse(answer.stdout) as A
      }
      const org = json<{ id: string }>(yield* cli("org", "create", "--name", "Pairs", "--json"))
      const vendor = json<{ id: string }>(yield* cli("vendor", "create", "--org", org.id, "--name", "Acme", "--json"))
      const debtor = json<{ id: string }>(yield* cli("debtor", "create", "--name", "Globex", "--json"))
      const config = JSON.stringify({ seed: 3, receivables: 12, startedAt: "2026-01-01T00:00:00Z", perDay: 4 })

      const createIntegration = (config: string, ...more: ReadonlyArray<string>) =>
        cli(
          "integration",
          "create",
          "--org",
          org.id,
          "--vendor",
          vendor.id,
          "--debtor",
          debtor.id,
          "--connector",
          "simulator",
          "--config",
          config,
          ...more
        )

      const refused = yield* createIntegration(JSON.stringify({ seed: 3 }))
      assert.strictEqual(refused.code, 1)
      assert.match(refused.stderr, /^partner-receivables: invalid simulator configuration at "receivables"/)

      const created = json<{ id: string; paused: boolean }>(
        yield* createIntegration(config, "--interval", "30m", "--json")
      )
      assert.isFalse(created.paused)
      const [run] = json<ReadonlyArray<{ outcome: string; created: number }>>(
        yield* cli("sync", "now", created.id, "--json")
      )
      assert.deepStrictEqual([run!.outcome, run!.created], ["succeeded", 12])
      const again = yield* cli("sync", "now", created.id)
      assert.strictEqual(again.code, 1)
      assert.match(
        again.stderr,
        /^partner-receivables: integration \S+ synced less than 1m ago \(MANUAL_SYNC_MIN_SECONDS\); it may sync again from \d{4}-/
      )
      const shown = json<{ runs: ReadonlyArray<{ outcome: string }>; interval_seconds: number }>(
        yield* cli("integration", "show", created.id, "--json")
      )
      assert.strictEqual(shown.interval_seconds, 1800)
      assert.deepStrictEqual(
        shown.runs.map((r) => r.outcome),
        ["succeeded"]
      )
      const paused = json<{ paused: boolean; next_sync_at: string | null }>(
        yield* cli("integration", "pause", created.id, "--json")
      )
      assert.deepStrictEqual([paused.paused, paused.next_sync_at], [true, null])
      const listed = json<ReadonlyArray<{ id: string }>>(yield* cli("integration", "list", "--org", org.id, "--json"))
      assert.deepStrictEqual(
        listed.map((i) => i.id),
        [created.id]
      )
      const unknown = yield* cli("integration", "show", "nope")
      assert.strictEqual(unknown.code, 1)
      assert.match(unknown.stderr, /^partner-receivables: no integration with id "nope"/)
    })
  )
})
