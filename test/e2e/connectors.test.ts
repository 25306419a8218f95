/**
 * Every bundled portal connector as operators use it: an integration created and synced with the
 * CLI, against the connector's fixture portal (a directory, a mock API), with secrets given to
 * the process by reference only.
 */
import { assert, layer } from "@effect/vitest"
import { Duration, Effect } from "effect"
import { fixture as coupa } from "../adapters/portals/fixtures/coupa.ts"
import { fixture as cxml } from "../adapters/portals/fixtures/cxml.ts"
import { fixture as file } from "../adapters/portals/fixtures/file.ts"
import { fixture as frLifecycle } from "../adapters/portals/fixtures/fr-lifecycle.ts"
import { fixtureFor } from "../adapters/portals/fixtures/http-json.ts"
import { fixture as peppol } from "../adapters/portals/fixtures/peppol.ts"
import { jsonOf, runCli } from "../support/Cli.ts"
import type { ConformanceFixture } from "../support/conformance/Conformance.ts"
import { sampleDocuments } from "../support/conformance/Conformance.ts"
import * as TestDatabase from "../support/TestDatabase.ts"

const portals: ReadonlyArray<ConformanceFixture> = [file, fixtureFor("cursor"), cxml, coupa, peppol, frLifecycle]

const newPair = (debtorName: string) =>
  Effect.gen(function* () {
    const org = jsonOf<{ id: string }>(yield* runCli(["org", "create", "--name", `Org for ${debtorName}`, "--json"]))
    const vendor = jsonOf<{ id: string }>(
      yield* runCli(["vendor", "create", "--org", org.id, "--name", "Acme", "--json"])
    )
    const debtor = jsonOf<{ id: string }>(yield* runCli(["debtor", "create", "--name", debtorName, "--json"]))
    return ["--org", org.id, "--vendor", vendor.id, "--debtor", debtor.id]
  })

/** `integration create` for a pair with a connector and its configuration. */
const createIntegration = (pair: ReadonlyArray<string>, kind: string, config: unknown, ...flags: Array<string>) =>
  runCli(["integration", "create", ...pair, "--connector", kind, "--config", JSON.stringify(config), ...flags])

layer(TestDatabase.layer, { timeout: 120_000, excludeTestServices: true })("connectors through the CLI", (it) => {
  it.effect(
    "an integration of each kind is created, then synced, with its secrets by reference",
    () =>
      Effect.gen(function* () {
        // One organization and vendor, a debtor per portal: each CLI call is a process of its own.
        const firstPair = yield* newPair(`Debtor on ${portals[0]!.connector.kind}`)
        for (const [index, portal] of portals.entries()) {
          const kind = portal.connector.kind
          const notation = portal.amountNotations[0]!
          const documents = sampleDocuments(30, portal.statuses, notation, portal.invoiceNumberIsKey)
          const config = yield* portal.portal(documents, notation)
          const pair =
            index === 0
              ? firstPair
              : [
                  ...firstPair.slice(0, 4),
                  "--debtor",
                  jsonOf<{ id: string }>(yield* runCli(["debtor", "create", "--name", `Debtor on ${kind}`, "--json"]))
                    .id
                ]
          const created = jsonOf<{ id: string; interval_seconds: number }>(
            yield* createIntegration(pair, kind, config, "--json")
          )
          assert.strictEqual(created.interval_seconds * 1000, Duration.toMillis(portal.connector.defaultInterval))
          const synced = yield* runCli(["sync", "now", created.id, "--json"], portal.secrets)
          const [run] =
            jsonOf<ReadonlyArray<{ outcome: string; created: number; quarantined: number; error?: string }>>(synced)
          assert.deepStrictEqual(
            [kind, run!.outcome, run!.created, run!.quarantined],
            [kind, "succeeded", 30, 0],
            run!.error
          )
          for (const secret of Object.values(portal.secrets ?? {})) {
            assert.notInclude(synced.stdout + synced.stderr, secret)
          }
        }
      }).pipe(Effect.scoped),
    // One CLI create and sync per bundled connector, each a process of its own.
    { timeout: 240_000 }
  )

  it.effect("a secret pasted into a configuration is refused, unechoed; a secret not set fails the run by name", () =>
    Effect.gen(function* () {
      const pair = yield* newPair("Debtor with secrets")
      const pasted = yield* createIntegration(pair, "coupa", {
        instanceUrl: "https://globex.coupahost.com",
        supplierId: 77,
        clientId: "receivables",
        clientSecret: "cs_live_pasted_by_mistake"
      })
      assert.strictEqual(pasted.code, 1)
      assert.match(pasted.stderr, /invalid coupa configuration at "clientSecret"/)
      assert.notInclude(pasted.stderr, "cs_live_pasted_by_mistake")

      const documents = sampleDocuments(3, coupa.statuses, coupa.amountNotations[0]!)
      const config = yield* coupa.portal(documents, coupa.amountNotations[0]!)
      const created = jsonOf<{ id: string }>(yield* createIntegration(pair, "coupa", config, "--json"))
      const failed = yield* runCli(["sync", "now", created.id, "--json"], { COUPA_CLIENT_SECRET: "" })
      assert.strictEqual(failed.code, 1)
      const [run] = JSON.parse(failed.stdout) as ReadonlyArray<{ outcome: string; error: string }>
      assert.deepStrictEqual(
        [run!.outcome, run!.error],
        ["failed", "environment variable COUPA_CLIENT_SECRET is not set"]
      )
    }).pipe(Effect.scoped)
  )
})
