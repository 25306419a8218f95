/**
 * A failed sync as API clients see it, replayed from a probe: `/v1/integrations` showed the
 * run's error as recorded, with the portal's internal address and port. Clients get the failure's
 * class and a sentence of it; the operators keep the detail (`integration show`).
 */
import { assert, layer } from "@effect/vitest"
import { Effect, Layer } from "effect"
import { SqlClient } from "effect/sql"
import { consumerMessages } from "../../../core/receivables/domain/RunError.ts"
import { configFor } from "../../adapters/portals/fixtures/http-json.ts"
import { jsonOf, runCli } from "../../support/Cli.ts"
import { insertFixture, keys } from "../../support/Fixtures.ts"
import { freePort } from "../../support/ports.ts"
import { rawGet } from "../../support/RawHttp.ts"
import { BaseUrl, layer as serverLayer } from "../../support/TestServer.ts"

const TestLayer = Layer.effectDiscard(insertFixture).pipe(Layer.provideMerge(serverLayer))

interface LastSync {
  readonly outcome: string
  readonly error: string | null
  readonly error_class: string | null
}

layer(TestLayer, { timeout: 120_000, excludeTestServices: true })("a failed run as clients see it", (it) => {
  it.effect(
    "/v1/integrations names the failure's class in a safe sentence; the CLI keeps the address for operators",
    () =>
      Effect.gen(function* () {
        const sql = yield* SqlClient.SqlClient
        const [org] = yield* sql<{ id: string }>`
        SELECT org_id AS id FROM api_keys WHERE key_hash = sha256(convert_to(${keys.orgA}, 'UTF8'))`
        const [vendor] = yield* sql<{ id: string }>`
        INSERT INTO vendors (org_id, name) VALUES (${org!.id}, 'Unreachable Portal Vendor') RETURNING id`
        const [debtor] = yield* sql<{ id: string }>`INSERT INTO debtors (name) VALUES ('Internal Debtor') RETURNING id`
        // Nothing listens there: the sync fails as it did against the portal's internal address.
        const port = yield* Effect.promise(freePort)
        const config = {
          ...configFor(`http://127.0.0.1:${port}`, "page", { decimalSeparator: ".", groupsThousands: false }),
          auth: { type: "none" }
        }
        const created = jsonOf<{ id: string }>(
          yield* runCli([
            "integration",
            "create",
            ...["--org", org!.id, "--vendor", vendor!.id, "--debtor", debtor!.id],
            ...["--connector", "http-json", "--config", JSON.stringify(config), "--json"]
          ])
        )
        const ran = yield* runCli(["sync", "now", created.id, "--json"])
        assert.strictEqual(ran.code, 1, ran.stderr)

        const base = yield* BaseUrl
        const answer = yield* Effect.promise(() =>
          rawGet(base, `/v1/integrations?vendor_id=${vendor!.id}`, { authorization: `Bearer ${keys.orgA}` })
        )
        assert.strictEqual(answer.status, 200)
        assert.notInclude(answer.body, "127.0.0.1")
        assert.notInclude(answer.body, String(port))
        const [integration] = JSON.parse(answer.body).data as ReadonlyArray<{ last_sync: LastSync }>
        assert.deepStrictEqual(integration!.last_sync.outcome, "failed")
        assert.strictEqual(integration!.last_sync.error_class, "portal_unreachable")
        assert.strictEqual(integration!.last_sync.error, consumerMessages.portal_unreachable)

        const shown = jsonOf<{ runs: ReadonlyArray<{ error: string }> }>(
          yield* runCli(["integration", "show", created.id, "--json"])
        )
        assert.include(shown.runs[0]!.error, `127.0.0.1:${port}`)
      })
  )
})
