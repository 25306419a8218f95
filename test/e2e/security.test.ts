/**
 * Security over real HTTP and PostgreSQL: randomized cross-organization attempts on every
 * endpoint and filter (no leak), malformed keys of every kind, 5,000 malformed Authorization
 * headers (one and the same 401, never a 5xx), and revocation reaching another running instance
 * that holds the key in its cache.
 */
import { assert, layer } from "@effect/vitest"
import { Context, Effect, Layer, Redacted, Schema } from "effect"
import { SqlClient } from "effect/sql"
import fc from "fast-check"
import * as Database from "../../adapters/postgres/Database.ts"
import { makeApiKey, secretBytes } from "../../core/access/domain/ApiKey.ts"
import { ResourceMissing } from "../../core/api/Errors.ts"
import { eventually } from "../support/Eventually.ts"
import { type Fixture, keys as fixtureKeys, insertFixture } from "../support/Fixtures.ts"
import { TestDatabaseUrl } from "../support/TestDatabase.ts"
import { BaseUrl, serverLayer, layer as testServer } from "../support/TestServer.ts"

class TestFixture extends Context.Service<TestFixture, Fixture>()("test/SecurityFixture") {}

const TestLayer = Layer.effect(TestFixture, insertFixture).pipe(Layer.provideMerge(testServer))

const fetchJson = (base: string, path: string, authorization?: string) =>
  Effect.promise(async () => {
    const response = await fetch(`${base}${path}`, {
      headers: authorization === undefined ? {} : { authorization }
    })
    return { status: response.status, text: await response.text() }
  })

layer(TestLayer, { timeout: 120_000, excludeTestServices: true })("security", (it) => {
  it.effect("1,000 randomized cross-organization requests leak nothing", () =>
    Effect.gen(function* () {
      const base = yield* BaseUrl
      const f = yield* TestFixture
      const orgA = {
        key: fixtureKeys.orgA,
        vendors: [f.vendorA1, f.vendorA2, f.vendorA3],
        receivables: f.receivablesA.map((r) => r.id)
      }
      const orgB = {
        key: fixtureKeys.orgB,
        vendors: [f.vendorB1],
        receivables: [f.receivableB, "rcv_000000000000000000000000000003e9"]
      }
      const debtors = [f.debtor1, f.debtor2, f.debtorB]
      const anyId = fc.constantFrom(...orgA.vendors, ...orgB.vendors, ...debtors)
      const request = fc.oneof(
        fc
          .record({
            vendor: fc.option(fc.constantFrom(...orgA.vendors, ...orgB.vendors), { nil: undefined }),
            debtor: fc.option(fc.constantFrom(...debtors), { nil: undefined }),
            status: fc.option(fc.constantFrom("PAID", "PENDING", "APPROVED"), { nil: undefined }),
            expand: fc.boolean()
          })
          .map(
            ({ vendor, debtor, status, expand }) =>
              `/v1/receivables?verified_since=all${vendor ? `&vendor_id=${vendor}` : ""}${debtor ? `&debtor_id=${debtor}` : ""}${status ? `&status=${status}` : ""}${expand ? "&expand[]=history&expand[]=metadata" : ""}`
          ),
        fc.constantFrom(...orgA.receivables, ...orgB.receivables).map((id) => `/v1/receivables/${id}`),
        fc
          .option(fc.constantFrom(...debtors), { nil: undefined })
          .map((d) => `/v1/vendors${d ? `?debtor_id=${d}` : ""}`),
        fc.option(anyId, { nil: undefined }).map((v) => `/v1/debtors${v ? `?vendor_id=${v}` : ""}`)
      )
      let requests = 0
      yield* Effect.promise(() =>
        fc.assert(
          fc.asyncProperty(fc.boolean(), request, async (asA, path) => {
            const [self, other] = asA ? [orgA, orgB] : [orgB, orgA]
            const response = await fetch(`${base}${path}`, { headers: { authorization: `Bearer ${self.key}` } })
            const text = await response.text()
            requests += 1
            assert.include([200, 404], response.status, `${path}: ${text}`)
            if (response.status === 404) {
              // Another organization's receivable answers exactly as one that does not exist.
              const id = path.split("/").at(-1)!
              assert.strictEqual(
                text,
                JSON.stringify(Schema.encodeSync(ResourceMissing)(ResourceMissing.receivable(id)))
              )
              assert.include(other.receivables, id, path)
              return
            }
            for (const id of [...other.vendors, ...other.receivables]) assert.notInclude(text, id, path)
            // Org B's own debtor never shows to org A, and org A's to org B only through B's pairs.
            if (asA) assert.notInclude(text, f.debtorB, path)
            else assert.notInclude(text, f.debtor2, path)
          }),
          { numRuns: 1_000 }
        )
      )
      assert.strictEqual(requests, 1_000)
    })
  )

  it.effect("malformed, truncated, foreign-brand, wrong-checksum and revoked keys are refused", () =>
    Effect.gen(function* () {
      const base = yield* BaseUrl
      const good = fixtureKeys.orgA
      const lastChar = good.at(-1)!
      const cases: ReadonlyArray<readonly [string, string]> = [
        [good.slice(0, -1), "api_key_invalid"],
        [good.slice(0, 20), "api_key_invalid"],
        [`${good}x`, "api_key_invalid"],
        [good.replace(/^pr_/, "xy_"), "api_key_invalid"],
        [makeApiKey("acme", new Uint8Array(secretBytes).fill(1)), "api_key_invalid"],
        [good.slice(0, -1) + (lastChar === "A" ? "B" : "A"), "api_key_invalid"],
        [good.toUpperCase(), "api_key_invalid"],
        // Well formed, correct checksum, but never issued.
        [makeApiKey("pr", new Uint8Array(secretBytes).fill(99)), "api_key_invalid"],
        [fixtureKeys.revoked, "api_key_revoked"]
      ]
      for (const [key, code] of cases) {
        const answer = yield* fetchJson(base, "/v1/vendors", `Bearer ${key}`)
        assert.strictEqual(answer.status, 401, key)
        assert.strictEqual(JSON.parse(answer.text).error.code, code, key)
      }
    })
  )

  it.effect("5,000 malformed Authorization headers all get the same 401 body, never a 5xx", () =>
    Effect.gen(function* () {
      const base = yield* BaseUrl
      const header = fc.oneof(
        fc.string({ unit: fc.integer({ min: 0x21, max: 0x7e }).map((c) => String.fromCharCode(c)), maxLength: 80 }),
        fc.constantFrom("Bearer", "Bearer ", "bearer x", "Basic dXNlcjpwYXNz", "Token abc", "Bearer pr_live_", "x"),
        fc.string({ maxLength: 60 }).map((s) => `Bearer ${s.replace(/[^\x21-\x7e]/g, "")}`)
      )
      const bodies = new Set<string>()
      yield* Effect.promise(() =>
        fc.assert(
          fc.asyncProperty(header, async (value) => {
            const response = await fetch(`${base}/v1/receivables`, { headers: { authorization: value } })
            const text = await response.text()
            assert.strictEqual(response.status, 401, `${JSON.stringify(value)} -> ${text}`)
            bodies.add(text)
          }),
          { numRuns: 5_000 }
        )
      )
      assert.deepStrictEqual(
        [...bodies],
        [
          JSON.stringify({
            error: { type: "authentication_error", code: "api_key_invalid", message: "The API key is not valid." }
          })
        ]
      )
    })
  )

  it.effect("a revocation reaches another running instance that holds the key in its cache", () =>
    Effect.gen(function* () {
      const sql = yield* SqlClient.SqlClient
      const url = yield* TestDatabaseUrl
      const [org] = yield* sql<{ id: string }>`INSERT INTO organizations (name) VALUES ('Cache Org') RETURNING id`
      const key = makeApiKey("pr", new Uint8Array(secretBytes).fill(42))
      const [row] = yield* sql<{ id: string }>`
        INSERT INTO api_keys (org_id, key_hash, display_start)
        VALUES (${org!.id}, sha256(convert_to(${key}, 'UTF8')), 'pr_live_x') RETURNING id`
      // A second instance of the app: its own pool, its own key cache.
      const other = yield* Layer.build(
        serverLayer().pipe(Layer.provide(Database.layerUrl(Redacted.make(url), { maxConnections: 2 })))
      )
      const otherBase = Context.get(other, BaseUrl)
      assert.strictEqual((yield* fetchJson(otherBase, "/v1/vendors", `Bearer ${key}`)).status, 200)
      assert.strictEqual((yield* fetchJson(otherBase, "/v1/vendors", `Bearer ${key}`)).status, 200)
      // Revoked by hand on the database, as an operator might; no process of the app is told.
      yield* sql`UPDATE api_keys SET revoked_at = now() WHERE id = ${row!.id}`
      // The announcement travels asynchronously: the other instance refuses the key once it arrives.
      let refused = { status: 0, text: "" }
      yield* eventually(
        "the other instance refusing the revoked key",
        Effect.map(fetchJson(otherBase, "/v1/vendors", `Bearer ${key}`), (answer) => {
          refused = answer
          return answer.status !== 200
        })
      )
      assert.strictEqual(refused.status, 401)
      assert.strictEqual(JSON.parse(refused.text).error.code, "api_key_revoked")
    })
  )
})
