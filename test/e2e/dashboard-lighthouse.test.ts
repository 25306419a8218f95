/**
 * Lighthouse on the dashboard's pages, as a phone and as a desktop, over loopback against the
 * test server: Accessibility and Best Practices 100, Performance at least 95 (the bar).
 * Each audit takes a few seconds, so `npm test` audits a representative three (signing in, the
 * overview, the receivables list); `DASHBOARD_LIGHTHOUSE=all` (`npm run lighthouse:dashboard`)
 * audits every page. The scores are written to `test-artifacts/dashboard-lighthouse.json`.
 * Lighthouse simulates a phone's slow CPU from this machine's timings, so a busy machine lowers
 * Performance: a page short of 95 is audited up to twice more, and the best Performance counts.
 */
import { mkdirSync, writeFileSync } from "node:fs"
import { assert, layer } from "@effect/vitest"
import { Effect, Layer } from "effect"
import { SqlClient } from "effect/sql"
import { AccountsLive } from "../../app/Layers.ts"
import { artifacts } from "../support/Chromium.ts"
import { run, signedIn } from "../support/DashboardClient.ts"
import { insertFixture } from "../support/Fixtures.ts"
import { audit, type FormFactor, launch, type Scores } from "../support/Lighthouse.ts"
import * as TestDatabase from "../support/TestDatabase.ts"
import { BaseUrl, serverLayer } from "../support/TestServer.ts"

const TestLayer = Layer.mergeAll(serverLayer({ dashboard: true }), AccountsLive).pipe(
  Layer.provideMerge(TestDatabase.layer)
)

const everyPage = process.env.DASHBOARD_LIGHTHOUSE === "all"

layer(TestLayer, { timeout: 600_000, excludeTestServices: true })("the dashboard under Lighthouse", (it) => {
  it.effect(
    "every audited page scores 100 for Accessibility and Best Practices and at least 95 for Performance, as a phone and a desktop",
    () =>
      Effect.gen(function* () {
        const fixture = yield* insertFixture
        const base = yield* BaseUrl
        const sql = yield* SqlClient.SqlClient
        const [pair] = yield* sql<{ id: string }>`SELECT id FROM integrations WHERE org_id = ${fixture.orgA} LIMIT 1`
        const { client } = yield* signedIn(base, fixture.orgA, "admin")
        const cookie = client.cookie
        const pages: ReadonlyArray<readonly [string, string, boolean]> = [
          ["sign-in", "/dashboard/sign-in", false],
          ["overview", "/dashboard/overview", true],
          ["receivables", "/dashboard/receivables", true],
          ...(everyPage
            ? ([
                ["receivables, searched", "/dashboard/receivables?q=inv-2", true],
                ["a receivable", `/dashboard/receivables/${fixture.receivablesA[0]!.id}`, true],
                ["integrations", "/dashboard/integrations", true],
                ["a pair", `/dashboard/integrations/${pair!.id}`, true],
                ["keys", "/dashboard/keys", true],
                ["account", "/dashboard/account", true],
                ["audit log", "/dashboard/audit", true]
              ] as const)
            : [])
        ]
        const browser = yield* Effect.acquireRelease(Effect.promise(launch), (browser) =>
          Effect.promise(() => browser.close())
        )
        const scores: Array<{ readonly page: string; readonly formFactor: FormFactor } & Scores> = []
        for (const [name, path, signed] of pages) {
          for (const formFactor of ["mobile", "desktop"] as const) {
            const once = run(() => audit(browser.port, `${base}${path}`, formFactor, signed ? cookie : undefined))
            // Performance is simulated from this machine's own timings (a busy machine can even
            // fail to measure it, scoring 0): up to three audits, the best counting. Accessibility
            // and Best Practices do not depend on timing, and every audit must hold them at 100.
            let found = yield* once
            for (let again = 0; again < 2 && found.performance < 95; again++) {
              const next = yield* once
              if (next.accessibility < found.accessibility || next.bestPractices < found.bestPractices) {
                found = { ...next, performance: Math.max(next.performance, found.performance) }
              } else if (next.performance > found.performance) found = next
            }
            scores.push({ page: name, formFactor, ...found })
          }
        }
        mkdirSync(artifacts, { recursive: true })
        writeFileSync(`${artifacts}/dashboard-lighthouse.json`, `${JSON.stringify(scores, null, 2)}\n`)
        const below = scores.filter(
          (score) => score.accessibility < 100 || score.bestPractices < 100 || score.performance < 95
        )
        assert.deepStrictEqual(below, [])
      }).pipe(Effect.scoped),
    600_000
  )
})
