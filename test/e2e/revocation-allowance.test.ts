/**
 * Revocation with the shared limits' local allowances, over HTTP: an instance that holds a key in
 * its cache and a batch of its tokens (so its requests reach no statement) refuses the key as soon
 * as the revocation's announcement arrives, well inside the allowance's second; and with the
 * announcement lost (the announcing trigger off), once the allowance lapses and its refill finds
 * the key revoked: within a second, and a request's round trip.
 */
import { assert, layer } from "@effect/vitest"
import { Duration, Effect } from "effect"
import { SqlClient } from "effect/sql"
import { makeApiKey, secretBytes } from "../../core/access/domain/ApiKey.ts"
import * as LocalAllowance from "../../core/access/domain/LocalAllowance.ts"
import { eventually } from "../support/Eventually.ts"
import { BaseUrl, layerWith } from "../support/TestServer.ts"

const generous = { perSecond: 1000, burst: 1000 }

const Server = layerWith({
  sharedLimits: true,
  rateLimit: generous,
  orgRateLimit: generous,
  // Kept for five minutes: only the announcement or the limits' refill can tell the cache otherwise.
  settings: { KEY_CACHE_SECONDS: "300" }
})

/** A live key of a new organization: its id and the key. */
const newKey = (seed: number) =>
  Effect.gen(function* () {
    const sql = yield* SqlClient.SqlClient
    const [org] = yield* sql<{ id: string }>`INSERT INTO organizations (name) VALUES ('Revoked') RETURNING id`
    const key = makeApiKey("pr", new Uint8Array(secretBytes).fill(seed))
    const [row] = yield* sql<{ id: string }>`
      INSERT INTO api_keys (org_id, key_hash, display_start)
      VALUES (${org!.id}, sha256(convert_to(${key}, 'UTF8')), 'pr_live_rv') RETURNING id`
    return { keyId: row!.id, key }
  }).pipe(Effect.orDie)

/** `GET /v1/vendors` with `key`: the status, and the error's code if any. */
const ask = (base: string, key: string) =>
  Effect.promise(async () => {
    const response = await fetch(`${base}/v1/vendors`, { headers: { authorization: `Bearer ${key}` } })
    const body = (await response.json()) as { error?: { code: string } }
    return { status: response.status, code: body.error?.code }
  })

/** Requests enough for the instance to hold the key in its cache and a batch of its tokens. */
const warmUp = (base: string, key: string) =>
  Effect.forEach(
    Array.from({ length: 5 }),
    () => Effect.map(ask(base, key), ({ status }) => assert.strictEqual(status, 200)),
    { discard: true }
  )

/** Asks until refused, every `everyMillis`, for at most `withinMillis`; the refusal's code. */
const refusedWithin = (base: string, key: string, withinMillis: number, everyMillis: number) =>
  Effect.gen(function* () {
    let code: string | undefined
    yield* eventually(
      `the key refused within ${withinMillis} ms`,
      Effect.map(ask(base, key), (answer) => {
        code = answer.code
        return answer.status !== 200
      }),
      { attempts: Math.floor(withinMillis / everyMillis), interval: Duration.millis(everyMillis) }
    )
    return code
  })

layer(Server, { timeout: 60_000, excludeTestServices: true })(
  "revocation with the shared limits' local allowances",
  (it) => {
    it.effect("announced: refused once the announcement arrives, well inside the allowance's second", () =>
      Effect.gen(function* () {
        const sql = yield* SqlClient.SqlClient
        const base = yield* BaseUrl
        const { keyId, key } = yield* newKey(61)
        yield* warmUp(base, key)
        yield* sql`UPDATE api_keys SET revoked_at = now() WHERE id = ${keyId}`
        // Fewer requests than the batch holds, and sooner than its lapse: only the announcement refuses.
        assert.strictEqual(yield* refusedWithin(base, key, LocalAllowance.lapseMillis / 2, 10), "api_key_revoked")
      })
    )

    it.effect("not announced: refused once the allowance lapses and its refill finds the key revoked", () =>
      Effect.gen(function* () {
        const sql = yield* SqlClient.SqlClient
        const base = yield* BaseUrl
        const { keyId, key } = yield* newKey(62)
        yield* warmUp(base, key)
        yield* sql.withTransaction(
          Effect.gen(function* () {
            yield* sql`ALTER TABLE api_keys DISABLE TRIGGER api_key_revoked`
            yield* sql`UPDATE api_keys SET revoked_at = now() WHERE id = ${keyId}`
            yield* sql`ALTER TABLE api_keys ENABLE TRIGGER api_key_revoked`
          })
        )
        // The second of the allowance, and half a second for the requests' round trips.
        assert.strictEqual(yield* refusedWithin(base, key, LocalAllowance.lapseMillis + 500, 50), "api_key_revoked")
      })
    )
  }
)
