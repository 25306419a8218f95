/**
 * One tenant's many keys cannot take the whole service: over a real socket, an organization's
 * keys together meet the organization's limit (above the per-key one), answered 429 with
 * `Retry-After` and a message naming the organization, while another organization is served; a
 * key over its own limit is refused by that limit first; the `RateLimit-*` headers report the
 * tighter of the two.
 */
import { assert, layer } from "@effect/vitest"
import { Effect, Layer } from "effect"
import { SqlClient } from "effect/sql"
import { makeApiKey, secretBytes } from "../../core/access/domain/ApiKey.ts"
import { insertFixture, keys } from "../support/Fixtures.ts"
import * as TestDatabase from "../support/TestDatabase.ts"
import { BaseUrl, serverLayer } from "../support/TestServer.ts"

// Two more keys of organization A, beside the fixture's own.
const moreKeysOfA = [41, 42].map((seed) => makeApiKey("pr", new Uint8Array(secretBytes).fill(seed)))

const addKeys = Effect.gen(function* () {
  const sql = yield* SqlClient.SqlClient
  for (const key of moreKeysOfA) {
    yield* sql`INSERT INTO api_keys (org_id, key_hash, display_start)
      SELECT org_id, sha256(convert_to(${key}, 'UTF8')), 'pr_live_mo' FROM api_keys
      WHERE key_hash = sha256(convert_to(${keys.orgA}, 'UTF8'))`
  }
})

// Nothing refills during the test: a bucket holds exactly its burst.
const TestLayer = Layer.effectDiscard(Effect.andThen(insertFixture, addKeys)).pipe(
  Layer.provideMerge(
    serverLayer({ rateLimit: { perSecond: 0.001, burst: 3 }, orgRateLimit: { perSecond: 0.001, burst: 5 } })
  ),
  Layer.provideMerge(TestDatabase.layer)
)

const get = (key: string) =>
  Effect.flatMap(BaseUrl, (base) =>
    Effect.promise(async () => {
      const response = await fetch(`${base}/v1/vendors`, { headers: { authorization: `Bearer ${key}` } })
      const body = (await response.json()) as { error?: { code: string; message: string } }
      const header = (name: string) => response.headers.get(name)
      return {
        status: response.status,
        limit: header("ratelimit-limit"),
        remaining: header("ratelimit-remaining"),
        retryAfter: header("retry-after"),
        message: body.error?.message
      }
    })
  )

layer(TestLayer, { timeout: 60_000, excludeTestServices: true })("the organization's rate limit", (it) => {
  it.effect("an organization's keys together are refused past its limit; another organization is not", () =>
    Effect.gen(function* () {
      const [second, third] = moreKeysOfA as [string, string]
      // Key and organization buckets: the headers follow the tighter one (key 3 then org 5).
      assert.deepStrictEqual(
        [yield* get(keys.orgA), yield* get(keys.orgA)].map((a) => [a.status, a.limit, a.remaining]),
        [
          [200, "3", "2"],
          [200, "3", "1"]
        ]
      )
      const ownLimit = [yield* get(keys.orgA), yield* get(keys.orgA)]
      assert.deepStrictEqual(
        ownLimit.map((a) => [a.status, a.limit, a.remaining]),
        [
          [200, "3", "0"],
          [429, "3", "0"]
        ]
      )
      assert.match(ownLimit[1]!.message ?? "", /^Too many requests with this key/)
      // The organization has spent 3 of its 5; the other keys have all of theirs.
      assert.deepStrictEqual(
        [yield* get(second), yield* get(second)].map((a) => [a.status, a.limit, a.remaining]),
        [
          [200, "5", "1"],
          [200, "5", "0"]
        ]
      )
      const refused = yield* get(third)
      assert.deepStrictEqual([refused.status, refused.limit, refused.remaining], [429, "5", "0"])
      // A token is 1,000 s at this rate, less what passed since the organization spent its last:
      // a second or more on a loaded machine.
      const wait = Number(refused.retryAfter)
      assert.isAtLeast(wait, 990)
      assert.isAtMost(wait, 1000)
      assert.strictEqual(
        refused.message,
        `Too many requests of this organization, all its keys together (the organization's rate limit); retry after ${wait} s.`
      )
      assert.strictEqual((yield* get(keys.orgB)).status, 200)
    })
  )
})
