/**
 * Requests in flight across 3 API processes behind PgBouncer in transaction mode, each process
 * holding leased shares of the budgets: a key's cap and its organization's hold across the
 * processes, another organization is served meanwhile, and the place of a process killed while
 * answering comes back once its lease ends (5 s). The receivables are locked for real, so that the
 * requests that read them stay in flight while the test looks.
 */
import { assert, layer } from "@effect/vitest"
import { Duration, Effect, Fiber } from "effect"
import { SqlClient } from "effect/sql"
import { eventually } from "../../support/Eventually.ts"
import { lockTable } from "../../support/TableLock.ts"
import * as TestDatabase from "../../support/TestDatabase.ts"
import * as Cluster from "./Cluster.ts"
import { newOrganization } from "./Organizations.ts"

const get = (base: string, path: string, key: string) =>
  Effect.promise(() =>
    fetch(`${base}${path}`, { headers: { authorization: `Bearer ${key}` }, signal: AbortSignal.timeout(30_000) }).then(
      async (response) => ({ status: response.status, body: await response.text() }),
      () => ({ status: 0, body: "" })
    )
  )

/** Another key of the organization, stored as the CLI stores one. */
const anotherKey = (orgId: string, seed: number) =>
  Effect.gen(function* () {
    const sql = yield* SqlClient.SqlClient
    const other = yield* newOrganization("Another key's seed", seed)
    yield* sql`UPDATE api_keys SET org_id = ${orgId} WHERE id = ${other.keyId}`
    return other.key
  }).pipe(Effect.orDie)

/** Once the processes hold `places` of the organization's budget in flight, as the database keeps them. */
const held = (orgId: string, places: number) =>
  Effect.gen(function* () {
    const sql = yield* SqlClient.SqlClient
    yield* eventually(
      `${places} places of the organization held`,
      Effect.map(
        sql<{ n: number }>`SELECT coalesce(sum(share), 0)::int AS n FROM in_flight_shares
          WHERE org_id = ${orgId} AND owner = ${orgId} AND expires_at > clock_timestamp()`,
        ([row]) => row!.n === places
      )
    )
  }).pipe(Effect.orDie)

layer(TestDatabase.layer, { timeout: 120_000, excludeTestServices: true })(
  "requests in flight across 3 processes behind PgBouncer",
  (it) => {
    it.effect("the caps hold across processes, and a killed process's place comes back after its lease", () =>
      Effect.scoped(
        Effect.gen(function* () {
          const url = yield* TestDatabase.TestDatabaseUrl
          const cluster = yield* Cluster.start(url, {
            apis: 3,
            workers: 0,
            serverConnections: 8,
            env: { KEY_MAX_IN_FLIGHT: "1", ORG_MAX_IN_FLIGHT: "2" }
          })
          const [one, two, three] = cluster.apis as [string, string, string]
          const { orgId, key } = yield* newOrganization("In flight across processes", 61)
          const second = yield* anotherKey(orgId, 62)
          const third = yield* anotherKey(orgId, 63)
          const elsewhere = yield* newOrganization("Another tenant", 64)

          const unlock = yield* lockTable("receivables")
          const dying = yield* Effect.forkChild(get(one, "/v1/receivables", key))
          yield* held(orgId, 1)
          const sameKey = yield* get(two, "/v1/receivables", key)
          assert.strictEqual(sameKey.status, 429)
          assert.include(sameKey.body, "with this key are being answered at once")
          const waiting = yield* Effect.forkChild(get(two, "/v1/receivables", second))
          yield* held(orgId, 2)
          const sameOrganization = yield* get(three, "/v1/receivables", third)
          assert.strictEqual(sameOrganization.status, 429)
          assert.include(sameOrganization.body, "organization")
          assert.strictEqual((yield* get(three, "/v1/vendors", elsewhere.key)).status, 200, "another tenant is served")

          // Killed while answering: its place is held until its lease ends.
          cluster.servers[0]!.child.kill("SIGKILL")
          yield* Effect.promise(() => cluster.servers[0]!.exited)
          assert.strictEqual((yield* Fiber.join(dying)).status, 0)
          yield* unlock
          assert.strictEqual((yield* Fiber.join(waiting)).status, 200)
          const killedAt = performance.now()
          assert.strictEqual((yield* get(three, "/v1/vendors", key)).status, 429, "held by the dead process")
          yield* eventually(
            "the key served again once the dead process's lease ended",
            Effect.map(get(three, "/v1/vendors", key), (answer) => answer.status === 200),
            { attempts: 80, interval: Duration.millis(100) }
          )
          // The lease is 5 s from the last renewal, which was at most a heartbeat (1 s) before the kill.
          assert.isAtMost(performance.now() - killedAt, 8_000)
        })
      )
    )
  }
)
