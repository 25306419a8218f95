/**
 * An idle worker sends no spans: its polls for due pairs, events to fan out and deliveries due,
 * and the scrapes of its metrics, are untraced, while a sync that does work is traced end to end.
 * The idle polls are counted instead (`sync_idle_polls_total`, `webhook_idle_polls_total`), which
 * is how this test knows that many of them went by.
 */
import { createServer } from "node:http"
import { assert, layer } from "@effect/vitest"
import { Effect } from "effect"
import { SqlClient } from "effect/sql"
import { spawnApp } from "../support/AppProcess.ts"
import { freePort } from "../support/ports.ts"
import { rawGet } from "../support/RawHttp.ts"
import * as TestDatabase from "../support/TestDatabase.ts"

interface Span {
  readonly name: string
  readonly traceId: string
  readonly endTimeUnixNano: string
}

const spansOf = (bodies: ReadonlyArray<string>): Array<Span> =>
  bodies.flatMap((body) =>
    (
      JSON.parse(body) as {
        resourceSpans: Array<{ scopeSpans: Array<{ spans: Array<Span> }> }>
      }
    ).resourceSpans.flatMap((resource) => resource.scopeSpans.flatMap((scope) => scope.spans))
  )

const counted = (scraped: string, name: string) => Number(new RegExp(`^${name} (\\d+)$`, "m").exec(scraped)?.[1] ?? 0)

layer(TestDatabase.layer, { timeout: 60_000, excludeTestServices: true })("an idle worker's traces", (it) => {
  it.effect("an idle worker sends no spans through many polls, and a sync it then runs is traced", () =>
    Effect.gen(function* () {
      const sql = yield* SqlClient.SqlClient
      const url = yield* TestDatabase.TestDatabaseUrl
      const received: Array<string> = []
      const collector = createServer((request, response) => {
        let body = ""
        request.on("data", (chunk) => {
          body += chunk
        })
        request.on("end", () => {
          if (request.url === "/v1/traces") received.push(body)
          response.writeHead(200, { "content-type": "application/json" }).end("{}")
        })
      })
      const [collectorPort, metricsPort] = yield* Effect.promise(() => Promise.all([freePort(), freePort()]))
      yield* Effect.acquireRelease(
        Effect.promise(() => new Promise<void>((resolve) => collector.listen(collectorPort, "127.0.0.1", resolve))),
        () => Effect.sync(() => collector.close())
      )
      const worker = yield* Effect.acquireRelease(
        Effect.sync(() =>
          spawnApp(
            {
              DATABASE_URL: url,
              DEMO_SEED: "false",
              SYNC_POLL_SECONDS: "0.1",
              WEBHOOK_POLL_MILLISECONDS: "20",
              METRICS_PORT: String(metricsPort),
              OTEL_EXPORTER_OTLP_ENDPOINT: `http://127.0.0.1:${collectorPort}`
            },
            "worker"
          )
        ),
        (app) =>
          Effect.promise(async () => {
            app.child.kill("SIGTERM")
            await app.exited
          })
      )
      const scrape = async () =>
        (await rawGet(`http://127.0.0.1:${metricsPort}`, "/metrics").catch(() => undefined))?.body
      // From its first scrape the worker has started: what it traced while starting is behind it.
      const up = yield* Effect.promise(async () => {
        const deadline = Date.now() + 30_000
        while (Date.now() < deadline) {
          if (worker.child.exitCode !== null) throw new Error(`the worker exited: ${worker.output()}`)
          if ((await scrape()) !== undefined) return BigInt(Date.now()) * 1_000_000n
          await new Promise((resolve) => setTimeout(resolve, 50))
        }
        throw new Error(`the worker's metrics did not answer within 30 s: ${worker.output()}`)
      })
      const afterStart = () => spansOf(received).filter((span) => BigInt(span.endTimeUnixNano) > up)
      // Idle: many polls of each loop go by (or spans arrive, which the assertion below reports).
      yield* Effect.promise(async () => {
        const deadline = Date.now() + 20_000
        while (Date.now() < deadline && afterStart().length === 0) {
          const scraped = (await scrape()) ?? ""
          if (counted(scraped, "sync_idle_polls_total") >= 10 && counted(scraped, "webhook_idle_polls_total") >= 40) {
            return
          }
          await new Promise((resolve) => setTimeout(resolve, 50))
        }
      })
      // Then a pair to sync: spans are exported in the order they end, so once the sync's have
      // arrived, any span made while idle has arrived before them.
      const [org] = yield* sql<{ id: string }>`INSERT INTO organizations (name) VALUES ('Traced') RETURNING id`
      const [vendor] = yield* sql<{ id: string }>`
        INSERT INTO vendors (org_id, name) VALUES (${org!.id}, 'Vendor') RETURNING id`
      const [debtor] = yield* sql<{ id: string }>`INSERT INTO debtors (name) VALUES ('Debtor') RETURNING id`
      yield* sql`
        INSERT INTO integrations (org_id, vendor_id, debtor_id, connector, config, next_sync_at)
        VALUES (${org!.id}, ${vendor!.id}, ${debtor!.id}, 'simulator',
          ${JSON.stringify({ seed: 5, receivables: 3, startedAt: "2026-01-01T00:00:00Z", perDay: 1 })}::jsonb, now())`
      const runs = yield* Effect.promise(async () => {
        const deadline = Date.now() + 30_000
        while (Date.now() < deadline) {
          const found = spansOf(received).filter((span) => span.name === "SyncEngine.runPair")
          if (found.length > 0) return found
          await new Promise((resolve) => setTimeout(resolve, 100))
        }
        throw new Error(`no span of the sync within 30 s: ${worker.output()}`)
      })
      const syncTraces = new Set(runs.map((span) => span.traceId))
      const spans = afterStart()
      const ofSync = spans.filter((span) => syncTraces.has(span.traceId))
      assert.isTrue(
        ofSync.some((span) => span.name === "SyncEngine.sync"),
        "the sync is traced end to end"
      )
      assert.isTrue(ofSync.length > 5, "the sync's statements are traced under it")
      // The deliveries' retention sweeps at start (then every six hours): work, traced as such.
      const sweeps = new Set(
        spans.filter((span) => span.name === "PgWebhookDeliveryStore.prune").map((span) => span.traceId)
      )
      const idle = spans.filter((span) => !syncTraces.has(span.traceId) && !sweeps.has(span.traceId))
      assert.deepStrictEqual(
        [...new Set(idle.map((span) => span.name))],
        [],
        `${idle.length} spans from the idle worker`
      )
    }).pipe(Effect.scoped)
  )
})
