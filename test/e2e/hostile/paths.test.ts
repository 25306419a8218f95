/**
 * Crafted paths, replayed from a hostile probe: paths are exact, so a dot segment, a `;`
 * parameter, a backslash, a case change, a trailing slash or an empty segment names no route:
 * 404 in the documented shape, audited with the path as received. None of them may reach a
 * probe's audit exemption with a key (once, `/v1/vendors;/../../health` answered the vendors and
 * left no trace). And whatever the path, each request has exactly one audit entry.
 */
import { assert, layer } from "@effect/vitest"
import { Effect, Layer } from "effect"
import { SqlClient } from "effect/sql"
import fc from "fast-check"
import { insertFixture, keys } from "../../support/Fixtures.ts"
import { rawGet } from "../../support/RawHttp.ts"
import { BaseUrl, layer as serverLayer } from "../../support/TestServer.ts"

const TestLayer = Layer.effectDiscard(insertFixture).pipe(Layer.provideMerge(serverLayer))
const bearer = { authorization: `Bearer ${keys.orgA}` }

const auditRows = (requestId: string) =>
  Effect.flatMap(
    SqlClient.SqlClient,
    (sql) => sql<{ path: string; status: number }>`
    SELECT path, status FROM audit_log WHERE request_id = ${requestId}`
  ).pipe(Effect.orDie)

const send = (target: string) => Effect.flatMap(BaseUrl, (base) => Effect.promise(() => rawGet(base, target, bearer)))

// What the probe found, and the forms docs/decisions.md names.
const crafted = [
  "/v1/vendors;/../../health",
  "/v1/vendors;/%2e%2e/%2e%2e/ready",
  "/v1/vendors;\\..\\..\\health",
  "/v1/vendors;/../../metrics",
  "//v1/vendors",
  "/V1/receivables",
  "/v1/Receivables",
  "/v1/vendors/",
  "/v1//vendors",
  "/v1/./vendors",
  "/v1/%2e/vendors",
  "/v1/%2E%2E/v1/vendors",
  "/v1\\vendors",
  "/v1/vendors;jsessionid=1",
  "/health/",
  "/health;x",
  "/v1/receivables/..",
  "/v1/receivables/%2e%2e",
  "/v1/receivables/a;b",
  "/v1/receivables/a%2fb"
]

// The paths that name a route exactly; every other path is 404.
const exact = ["/v1/receivables", "/v1/vendors", "/v1/debtors", "/v1/openapi.json", "/health", "/ready"]
const probes = new Set(["/health", "/ready"])

const mutations: ReadonlyArray<(path: string) => string> = [
  (p) => p,
  (p) => `${p}/`,
  (p) => p.toUpperCase(),
  (p) => p.replace("/", "//"),
  (p) => `${p};x=1`,
  (p) => `${p}/.`,
  (p) => `${p}/..`,
  (p) => `${p}/%2e%2e`,
  (p) => p.replaceAll("/", "\\"),
  (p) => `${p}/../../health`,
  (p) => `/.${p}`,
  (p) => p.replace(/\/([^/]*)$/, "/./$1")
]

layer(TestLayer, { timeout: 120_000, excludeTestServices: true })("crafted paths", (it) => {
  it.effect("each crafted path is a 404 in the documented shape, audited once with the path as received", () =>
    Effect.gen(function* () {
      for (const target of crafted) {
        const answer = yield* send(target)
        assert.strictEqual(answer.status, 404, target)
        const body = JSON.parse(answer.body) as { error: { type: string; code: string } }
        assert.deepInclude(body.error, { type: "invalid_request_error", code: "resource_missing" }, target)
        const rows = yield* auditRows(String(answer.headers["request-id"]))
        assert.deepStrictEqual(rows, [{ path: target, status: 404 }], target)
      }
    })
  )

  it.effect(
    "with a valid key, only the exact routes answer 200, and every request but a probe's has exactly one audit entry",
    () =>
      Effect.gen(function* () {
        const base = yield* BaseUrl
        const sql = yield* SqlClient.SqlClient
        yield* Effect.promise(() =>
          fc.assert(
            fc.asyncProperty(
              fc.constantFrom(...exact),
              fc.array(fc.constantFrom(...mutations), { minLength: 1, maxLength: 3 }),
              async (route, mutate) => {
                const target = mutate.reduce((path, f) => f(path), route)
                const answer = await rawGet(base, target, bearer)
                assert.strictEqual(answer.status === 200, exact.includes(target), `${target}: ${answer.status}`)
                const rows = await Effect.runPromise(
                  sql`SELECT 1 FROM audit_log WHERE request_id = ${String(answer.headers["request-id"])}`
                )
                assert.strictEqual(rows.length, probes.has(target) ? 0 : 1, target)
              }
            ),
            { numRuns: 150 }
          )
        )
      })
  )
})
