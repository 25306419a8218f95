/**
 * Secrets that reached the audit log in clear, replayed from a probe over real HTTP: a key's
 * secret without its prefix or behind the prefix in capitals, in a path, a query or a request
 * line Node refused; and an invite link pasted with trailing punctuation or a path variant.
 */
import { assert, layer } from "@effect/vitest"
import { Effect, Layer } from "effect"
import { SqlClient } from "effect/sql"
import { prefix } from "../../../core/access/domain/ApiKey.ts"
import { insertFixture, keys } from "../../support/Fixtures.ts"
import { exchange, rawGet } from "../../support/RawHttp.ts"
import { BaseUrl, layerWith } from "../../support/TestServer.ts"

const TestLayer = Layer.effectDiscard(insertFixture).pipe(Layer.provideMerge(layerWith({ dashboard: true })))

const secret = keys.orgA.slice(prefix("pr").length)
const inviteToken = "Zq3x_8Kd-pL2mN7vB4cX9wR1tY6uI0oP5aS3dF8gH2j"

const auditedTarget = (requestId: string) =>
  Effect.flatMap(
    SqlClient.SqlClient,
    (sql) => sql<{ path: string; query: string }>`
    SELECT path, query FROM audit_log WHERE request_id = ${requestId}`
  ).pipe(
    Effect.orDie,
    Effect.map((rows) => rows.map((row) => `${row.path}?${row.query}`))
  )

layer(TestLayer, { timeout: 60_000, excludeTestServices: true })("secrets in request targets", (it) => {
  it.effect("a key's secret without its prefix or behind a capital prefix never reaches the audit log", () =>
    Effect.gen(function* () {
      const base = yield* BaseUrl
      const targets = [
        `/v1/receivables/${secret}`,
        `/v1/receivables?api_key=${secret}`,
        `/v1/receivables?api_key=PR_LIVE_${secret}`,
        `/v1/vendors/PR_LIVE_${secret}`,
        `/v1/receivables?api_key=Pr%5FLive%5F${secret}`
      ]
      for (const target of targets) {
        const answer = yield* Effect.promise(() => rawGet(base, target))
        const [kept] = yield* auditedTarget(String(answer.headers["request-id"]))
        assert.isDefined(kept, target)
        assert.notInclude(kept, secret, target)
        assert.include(kept, "[redacted]", target)
      }
      // A request line Node itself refuses (a space in a header name) is kept redacted too.
      const refused = yield* Effect.promise(() =>
        exchange(base, `GET /v1/receivables/${secret} HTTP/1.1\r\nBad Header: x\r\n\r\n`)
      )
      const requestId = /request-id: (req_[0-9a-f]+)/.exec(refused)?.[1]
      assert.deepStrictEqual(yield* auditedTarget(requestId ?? ""), ["/v1/receivables/[redacted]?"])
    })
  )

  it.effect("an invite link with trailing punctuation or a path variant never reaches the audit log", () =>
    Effect.gen(function* () {
      const base = yield* BaseUrl
      const targets = [".", ",", ")", "/", "%20"].map((tail) => `/dashboard/invite/${inviteToken}${tail}`)
      targets.push(`//dashboard/invite/${inviteToken}`, `/dashboard//invite/${inviteToken}`)
      for (const target of targets) {
        const answer = yield* Effect.promise(() => rawGet(base, target))
        const [kept] = yield* auditedTarget(String(answer.headers["request-id"]))
        assert.isDefined(kept, target)
        assert.notInclude(kept, inviteToken.slice(0, 20), target)
        assert.include(kept, "[redacted]", target)
      }
    })
  )
})
