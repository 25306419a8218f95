/**
 * One organization floods the webhook queue (`npm run bench:abuse:webhooks`): what a second
 * organization's deliveries see meanwhile, against a quiet baseline in the same run. A fresh
 * embedded PostgreSQL, one worker in this process with the service's default settings (16
 * attempts at once, 4 per endpoint, 8 per organization, bounds per organization as
 * docs/operators.md gives them), receivers on loopback.
 *
 * 1. Quiet: the second organization's sync of BENCH_QUIET events (default 600) to its one
 *    endpoint; from the commit to the first and to the last arrival.
 * 2. The flood, as issue 42's probe made it: the flooding organization commits BENCH_FLOOD_EVENTS
 *    events (default 10,000, the most one replay sends), then asks for BENCH_FLOOD_ENDPOINTS + 10
 *    endpoints (default 30) and BENCH_FLOOD_REPLAYS replays of the whole window on each endpoint it
 *    got (default 30), all to a receiver that answers after BENCH_SLOW_MS (default 5,000). What was
 *    queued and refused, and what counting the organization's deliveries waiting costs then.
 * 3. Flooded: the quiet phase again while the flood's deliveries are being attempted, bounded by
 *    BENCH_MAX_SECONDS (default 150, as the probe waited).
 *
 * BENCH_SMOKE=1 runs it in seconds at tiny sizes.
 */
import { PgClient } from "@effect/sql-pg"
import { DateTime, Duration, Effect, Exit, Fiber, Redacted, Scope } from "effect"
import { SqlClient } from "effect/sql"
import type { OrgId } from "../../core/shared/domain/Ids.ts"
import {
  type DeliveryOptions,
  endpointConcurrency,
  organizationConcurrency,
  WebhookDelivery
} from "../../core/webhooks/services/WebhookDelivery.ts"
import { WebhookEndpoints } from "../../core/webhooks/services/WebhookEndpoints.ts"
import { migratedDatabase, startCluster } from "../support/FreshDatabase.ts"
import { option } from "../support/Smoke.ts"
import { newPair, percentile, sync, webhookServices } from "../webhooks/Bench.ts"
import { listen, type Receiver } from "../webhooks/receivers.ts"

const quietEvents = option("BENCH_QUIET", 600, 20)
const floodEvents = option("BENCH_FLOOD_EVENTS", 10_000, 30)
const floodEndpoints = option("BENCH_FLOOD_ENDPOINTS", 20, 3)
const floodReplays = option("BENCH_FLOOD_REPLAYS", 30, 2)
const slowMs = option("BENCH_SLOW_MS", 5_000, 200)
const maxSeconds = option("BENCH_MAX_SECONDS", 150, 30)
const log = (line: string) => process.stderr.write(`${line}\n`)

interface Phase {
  readonly first: number | undefined
  readonly all: number | undefined
  readonly arrived: number
}

/** A sync of the quiet organization's events, and when they arrived at `receiver`, in ms from its commit. */
const quietPhase = (org: OrgId, pairId: string, receiver: Receiver) =>
  Effect.gen(function* () {
    const sql = yield* SqlClient.SqlClient
    const { committed } = yield* sync(pairId, quietEvents)
    const [counter] = yield* sql<{ last: number }>`
      SELECT last_sequence::int AS last FROM event_counters WHERE org_id = ${org}`
    const sequences = Array.from({ length: quietEvents }, (_, i) => counter!.last - quietEvents + 1 + i)
    const deadline = committed + maxSeconds * 1000
    const arrivals = () => sequences.flatMap((s) => receiver.firstArrival.get(s) ?? [])
    while (arrivals().length < quietEvents && performance.now() < deadline) yield* Effect.sleep(Duration.millis(20))
    const times = arrivals().map((at) => at - committed)
    return {
      first: times.length === 0 ? undefined : Math.min(...times),
      all: times.length === quietEvents ? Math.max(...times) : undefined,
      arrived: times.length
    } satisfies Phase
  })

const main = Effect.gen(function* () {
  const server = yield* startCluster("abuse-webhooks")
  const db = PgClient.layer({ url: Redacted.make(yield* migratedDatabase(server.url)), maxConnections: 8 })

  yield* Effect.gen(function* () {
    const sql = yield* SqlClient.SqlClient
    const endpoints = yield* WebhookEndpoints
    const delivery = yield* WebhookDelivery
    const quiet = yield* newPair("Quiet")
    const flood = yield* newPair("Flood")
    const fast = yield* Effect.promise(() => listen("fast"))
    const slow = yield* Effect.promise(() => listen("slow", slowMs))
    yield* endpoints.create(quiet.org.id, { url: fast.url })
    const worker: DeliveryOptions = {
      worker: "bench",
      concurrency: 16,
      perEndpoint: yield* endpointConcurrency,
      perOrganization: yield* organizationConcurrency,
      lease: Duration.minutes(1),
      pollInterval: Duration.millis(250)
    }
    const running = yield* Effect.forkChild(delivery.run(worker))

    const alone = yield* quietPhase(quiet.org.id, quiet.pair.id, fast)
    log(`quiet: first ${alone.first?.toFixed(0)} ms, all ${alone.all?.toFixed(0)} ms`)

    // The flood: its events first (so that its endpoints' cursors start past them), then as many
    // endpoints and replays as it is let have.
    for (let left = floodEvents; left > 0; left -= 500) yield* sync(flood.pair.id, Math.min(500, left))
    const since = DateTime.subtract(yield* DateTime.now, { hours: 1 })
    const floodStarted = performance.now()
    const made: Array<string> = []
    let endpointsRefused = 0
    for (let i = 0; i < floodEndpoints + 10; i++) {
      const created = yield* endpoints.create(flood.org.id, { url: slow.url }).pipe(Effect.result)
      if (created._tag === "Success") made.push(created.success.endpoint.id)
      else endpointsRefused += 1
    }
    const replays = { queued: 0, deliveries: 0, waiting: 0, replays: 0, window: 0 }
    for (let round = 0; round < floodReplays; round++) {
      for (const id of made) {
        const answer = yield* endpoints.replay(flood.org.id, id, { since }).pipe(Effect.result)
        if (answer._tag === "Success") {
          replays.queued += 1
          replays.deliveries += answer.success.queued
        } else if (answer.failure._tag === "WebhookOrganizationBusy") replays[answer.failure.bound] += 1
        else replays.window += 1
      }
    }
    const floodSeconds = (performance.now() - floodStarted) / 1000
    const countTimes: Array<number> = []
    let waiting = 0
    for (let i = 0; i < 20; i++) {
      const started = performance.now()
      const [row] = yield* sql<{ waiting: number }>`
        SELECT count(*)::int AS waiting FROM webhook_endpoints e JOIN webhook_deliveries d ON d.endpoint_id = e.id
        WHERE e.org_id = ${flood.org.id} AND d.org_id = ${flood.org.id} AND d.status IN ('pending', 'sending')`
      countTimes.push(performance.now() - started)
      waiting = row!.waiting
    }
    log(
      `flood: ${made.length} endpoints, ${replays.queued} replays queued ${replays.deliveries} in ${floodSeconds.toFixed(1)} s`
    )

    const flooded = yield* quietPhase(quiet.org.id, quiet.pair.id, fast)
    log(`flooded: first ${flooded.first?.toFixed(0)} ms, all ${flooded.all?.toFixed(0)} ms`)
    yield* Fiber.interrupt(running)
    yield* Effect.promise(() => Promise.all([fast.close(), slow.close()]))

    const ms = (value: number | undefined) => (value === undefined ? "-" : value.toFixed(0))
    const ratio = (value: number | undefined, base: number | undefined) =>
      value === undefined || base === undefined ? "-" : `${(value / base).toFixed(2)}x`
    const phase = (name: string, p: Phase) =>
      `| ${name} | ${p.arrived} of ${quietEvents} | ${ms(p.first)} | ${ms(p.all)} | ${ratio(p.first, alone.first)} | ${ratio(p.all, alone.all)} |`
    process.stdout.write(
      `${[
        `| the other organization's ${quietEvents} deliveries | arrived | first ms | all ms | first / quiet | all / quiet |`,
        "|---|---|---|---|---|---|",
        phase("quiet", alone),
        phase(`flooded (${made.length} endpoints answering in ${slowMs} ms)`, flooded),
        "",
        "| the flood | value |",
        "|---|---|",
        `| endpoints made / refused (400) | ${made.length} / ${endpointsRefused} |`,
        `| replays of ${floodEvents} events asked | ${made.length * floodReplays} |`,
        `| replays queued (deliveries) | ${replays.queued} (${replays.deliveries.toLocaleString("en")}) |`,
        `| refused 429: deliveries waiting / replays in flight; 400: window | ${replays.waiting} / ${replays.replays}; ${replays.window} |`,
        `| seconds to ask for them all | ${floodSeconds.toFixed(1)} |`,
        `| deliveries waiting, counted | ${waiting.toLocaleString("en")} |`,
        `| counting them (the bounds' statement), p50 / max ms | ${percentile(countTimes, 50).toFixed(1)} / ${Math.max(...countTimes).toFixed(1)} |`,
        `| the flood's attempts made meanwhile | ${slow.received} |`
      ].join("\n")}\n`
    )
  }).pipe(Effect.provide(webhookServices(db, Duration.seconds(15))))
})

const scope = Effect.runSync(Scope.make())
Effect.runPromise(main.pipe(Scope.provide(scope))).finally(() => Effect.runPromise(Scope.close(scope, Exit.void)))
