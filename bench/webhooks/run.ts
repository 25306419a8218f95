/**
 * The webhooks benchmark (`npm run bench:webhooks`), on a fresh embedded PostgreSQL with one
 * worker in this process (16 attempts at once, 4 per endpoint, polling every 250 ms):
 * 1. latency: BENCH_SYNCS syncs of BENCH_PER_SYNC new receivables each, a sync every BENCH_GAP_MS
 *    (default 1,000), to one fast receiver; from each sync's commit to each of its events' first
 *    arrival (the backlog a burst leaves is what the throughput run measures);
 * 2. throughput: BENCH_BACKLOG events already committed, fanned out and delivered by the worker
 *    to a fast receiver: deliveries per second;
 * 3. isolation: the latency run again, with an endpoint that always answers 500 and one that
 *    never answers (15 s timeouts) beside the healthy one: the healthy one's latency.
 * BENCH_SMOKE=1 runs it in seconds at tiny sizes (and 1 s timeouts).
 */
import { PgClient } from "@effect/sql-pg"
import { Duration, Effect, Exit, Fiber, Redacted, Scope } from "effect"
import { SqlClient } from "effect/sql"
import type { OrgId } from "../../core/shared/domain/Ids.ts"
import { type DeliveryOptions, WebhookDelivery } from "../../core/webhooks/services/WebhookDelivery.ts"
import { WebhookEndpoints } from "../../core/webhooks/services/WebhookEndpoints.ts"
import { migratedDatabase, startCluster } from "../support/FreshDatabase.ts"
import { option, sized } from "../support/Smoke.ts"
import { newPair, percentile, sync, webhookServices } from "./Bench.ts"
import { listen, type Receiver } from "./receivers.ts"

const syncs = option("BENCH_SYNCS", 30, 4)
const gap = Duration.millis(option("BENCH_GAP_MS", 1000, 200))
const perSync = option("BENCH_PER_SYNC", 20, 3)
const backlog = option("BENCH_BACKLOG", 5000, 40)
const timeout = sized(Duration.seconds(15), Duration.seconds(1))
const log = (line: string) => process.stderr.write(`${line}\n`)

const worker: DeliveryOptions = {
  worker: "bench",
  concurrency: 16,
  perEndpoint: 4,
  perOrganization: 16,
  lease: Duration.minutes(1),
  pollInterval: Duration.millis(250)
}

/** Syncs one after another while the worker runs; answers each event's latency to `receiver`, in ms. */
const latencies = (org: OrgId, pairId: string, receiver: Receiver) =>
  Effect.gen(function* () {
    const sql = yield* SqlClient.SqlClient
    // Each event's sync's commit, by the sequence the event took.
    const committedAt = new Map<number, number>()
    for (let i = 0; i < syncs; i++) {
      const { committed } = yield* sync(pairId, perSync)
      const [counter] = yield* sql<{ last: number }>`
        SELECT last_sequence::int AS last FROM event_counters WHERE org_id = ${org}`
      for (let sequence = counter!.last - perSync + 1; sequence <= counter!.last; sequence++) {
        committedAt.set(sequence, committed)
      }
      yield* Effect.sleep(gap)
    }
    const arrived = () => [...committedAt.keys()].every((sequence) => receiver.firstArrival.has(sequence))
    while (!arrived()) yield* Effect.sleep(Duration.millis(20))
    return [...committedAt].map(([sequence, committed]) => receiver.firstArrival.get(sequence)! - committed)
  })

const main = Effect.gen(function* () {
  const server = yield* startCluster("webhooks")
  const db = PgClient.layer({ url: Redacted.make(yield* migratedDatabase(server.url)), maxConnections: 8 })
  const services = webhookServices(db, timeout)

  yield* Effect.gen(function* () {
    const endpoints = yield* WebhookEndpoints
    const delivery = yield* WebhookDelivery
    const { org, pair } = yield* newPair("Bench")
    const receivers = yield* Effect.promise(() =>
      Promise.all([listen("fast"), listen("fast"), listen("failing"), listen("silent")])
    )
    const [alone, healthy, failing, silent] = receivers

    // 1. Latency, one healthy endpoint.
    const first = yield* endpoints.create(org.id, { url: alone!.url })
    let running = yield* Effect.forkChild(delivery.run(worker))
    const quiet = yield* latencies(org.id, pair.id, alone!)
    yield* Fiber.interrupt(running)
    yield* endpoints.update(org.id, first.endpoint.id, { enabled: false })

    // 2. Throughput: a backlog committed first, then fanned out and delivered by one worker.
    const second = yield* endpoints.create(org.id, { url: healthy!.url })
    for (let left = backlog; left > 0; left -= 500) yield* sync(pair.id, Math.min(500, left))
    const started = performance.now()
    while ((yield* delivery.fanOut) > 0) {}
    yield* delivery.drain({ ...worker, perEndpoint: 16 })
    const seconds = (performance.now() - started) / 1000
    log(`${healthy!.received} deliveries of a backlog of ${backlog} in ${seconds.toFixed(2)} s`)

    // 3. Isolation: the healthy endpoint beside a failing and a silent one.
    yield* endpoints.create(org.id, { url: failing!.url })
    yield* endpoints.create(org.id, { url: silent!.url })
    running = yield* Effect.forkChild(delivery.run(worker))
    const crowded = yield* latencies(org.id, pair.id, healthy!)
    yield* Fiber.interrupt(running)
    yield* endpoints.remove(org.id, second.endpoint.id)
    yield* Effect.promise(() => Promise.all(receivers.map((r) => r.close())))

    const row = (name: string, values: ReadonlyArray<number>) =>
      `| ${name} | ${values.length} | ${percentile(values, 50).toFixed(0)} | ${percentile(values, 99).toFixed(0)} | ${Math.max(...values).toFixed(0)} |`
    process.stdout.write(
      `${[
        "| commit to first attempt | events | p50 ms | p99 ms | max ms |",
        "|---|---|---|---|---|",
        row("healthy endpoint alone", quiet),
        row("healthy, beside a failing (500) and a silent endpoint", crowded),
        "",
        "| throughput, one worker | value |",
        "|---|---|",
        `| deliveries per second (backlog of ${backlog}, fan-out included) | ${Math.round(healthy!.received / seconds).toLocaleString("en")} |`,
        `| failing endpoint's attempts / silent endpoint's attempts | ${failing!.received} / ${silent!.received} |`
      ].join("\n")}\n`
    )
  }).pipe(Effect.provide(services))
})

const scope = Effect.runSync(Scope.make())
Effect.runPromise(main.pipe(Scope.provide(scope))).finally(() => Effect.runPromise(Scope.close(scope, Exit.void)))
