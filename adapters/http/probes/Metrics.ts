/**
 * The HTTP side's metrics, declared with effect's `Metric` where requests are answered, the sync
 * runs' durations, the process's own figures, and the scrape, which exports every metric of the
 * process (the sync engine's among them) with effect's Prometheus support. Gauges read at scrape
 * time: pairs overdue (through a port, in every process), the audit queue (API processes), the
 * webhook deliveries waiting (processes that deliver), and the process's memory, CPU and
 * event-loop delay. Routes are the patterns of `RequestPath` (never
 * raw paths, which would grow without bound). The scrape is served on a listener of its own
 * (`MetricsListener.ts`), never on the public port.
 */
import type { ELDHistogram } from "node:perf_hooks"
import { Duration, Effect, Metric } from "effect"
import { HttpServerResponse } from "effect/http"
import { PrometheusMetrics } from "effect/observability"
import { AuditLog } from "../../../core/access/ports/AuditLog.ts"
import { PairStore } from "../../../core/receivables/ports/PairStore.ts"
import { WebhookDeliveryStore } from "../../../core/webhooks/ports/WebhookDeliveryStore.ts"

const requests = Metric.counter("http_requests_total", {
  description: "HTTP requests answered, by route, method and status.",
  incremental: true
})

const latency = Metric.histogram("http_request_duration_seconds", {
  description: "Time to answer a request, by route.",
  boundaries: [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10]
})

const overdue = Metric.gauge("sync_pairs_overdue", {
  description: "Unpaused pairs whose sync is more than a minute late."
})

// Past it the gauge reads the cap: the count stops there, so a scrape costs the same however long
// the queue, and a queue that long is an alert already. Measured with 100,000 waiting among
// 200,000 rows (an index-only scan of the partial due index, before the count was joined to the
// enabled endpoints): 4 to 10 ms with this cap, 65 to 210 ms counting all 100,000, on a loaded
// two-core machine.
const waitingCap = 10_000

const deliveriesWaiting = Metric.gauge("webhook_deliveries_waiting", {
  description: `Webhook deliveries waiting (pending or in flight) for an enabled endpoint, every organization's, counted up to ${waitingCap}.`
})

const auditQueue = Metric.gauge("audit_queue_depth", { description: "Audit entries waiting to be committed." })

const syncDuration = Metric.histogram("sync_run_duration_seconds", {
  description: "Time a pair's sync took in this process, from its start to its outcome, by outcome.",
  boundaries: [0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60, 120, 300]
})

const residentMemory = Metric.gauge("process_resident_memory_bytes", { description: "Resident memory of the process." })
const heapUsed = Metric.gauge("nodejs_heap_used_bytes", { description: "V8 heap in use." })
const cpuSeconds = Metric.gauge("process_cpu_seconds_total", {
  description: "User and system CPU time the process has spent, in seconds."
})
const loopDelayP99 = Metric.gauge("nodejs_eventloop_delay_p99_seconds", {
  description: "99th percentile of the event loop's delay since the previous scrape."
})
const loopDelayMax = Metric.gauge("nodejs_eventloop_delay_max_seconds", {
  description: "Longest event-loop delay since the previous scrape."
})

// Label values come from a closed set: a method is whatever bytes a client sent, and each new
// label value would be a new series held for the life of the process.
const knownMethods = new Set(["GET", "HEAD", "POST", "PUT", "PATCH", "DELETE", "OPTIONS", "TRACE", "CONNECT"])

// The series of each label set, made once: attaching attributes anew on every request showed in
// profiles, and the label sets are few (routes, known methods and statuses are closed sets).
const requestSeries = new Map<string, Metric.Metric<number, unknown>>()
const latencySeries = new Map<string, Metric.Metric<number, unknown>>()

const seriesOf = <M extends Metric.Metric<number, unknown>>(
  cache: Map<string, Metric.Metric<number, unknown>>,
  key: string,
  make: () => M
) => {
  let found = cache.get(key)
  if (found === undefined) {
    found = make()
    cache.set(key, found)
  }
  return found
}

/** Counts an answered request. `route` is the route's pattern (`RequestPath`), `unmatched` or `unparsed`. */
export const observeRequest = (method: string, route: string, status: number, seconds: number) => {
  const known = knownMethods.has(method) ? method : "other"
  const counted = seriesOf(requestSeries, `${route} ${known} ${status}`, () =>
    Metric.withAttributes(requests, { route, method: known, status: String(status) })
  )
  const timed = seriesOf(latencySeries, route, () => Metric.withAttributes(latency, { route }))
  return Effect.andThen(Metric.update(counted, 1), Metric.update(timed, seconds))
}

const syncSeries = new Map<string, Metric.Metric<number, unknown>>()

/** Times a sync run: `outcome` is the engine's (`Succeeded` or `Failed`). */
export const observeSyncRun = (outcome: "Succeeded" | "Failed", seconds: number) =>
  Metric.update(
    seriesOf(syncSeries, outcome, () =>
      Metric.withAttributes(syncDuration, { outcome: outcome === "Succeeded" ? "succeeded" : "failed" })
    ),
    seconds
  )

/** What every process reads at scrape time: the pairs overdue. */
export const pairGauges = Effect.flatMap(PairStore, (pairs) =>
  Effect.flatMap(pairs.countOverdue(Duration.minutes(1)), (n) => Metric.update(overdue, n))
)

/** What an API process reads besides: the audit queue. */
export const apiGauges = Effect.andThen(
  pairGauges,
  Effect.flatMap(AuditLog, (audit) => Effect.flatMap(audit.pending, (n) => Metric.update(auditQueue, n)))
)

/** What a process that delivers webhooks reads besides: the deliveries waiting. */
export const webhookGauges = Effect.flatMap(WebhookDeliveryStore, (store) =>
  Effect.flatMap(store.waiting(waitingCap), (n) => Metric.update(deliveriesWaiting, n))
)

/** The process's figures; `loop` (enabled by the listener) is reset, so each scrape covers its own interval. */
const processGauges = (loop: ELDHistogram) =>
  Effect.suspend(() => {
    const memory = process.memoryUsage()
    const cpu = process.cpuUsage()
    const p99 = loop.percentile(99) / 1e9
    const max = loop.max / 1e9
    loop.reset()
    return Effect.all([
      Metric.update(residentMemory, memory.rss),
      Metric.update(heapUsed, memory.heapUsed),
      Metric.update(cpuSeconds, (cpu.user + cpu.system) / 1e6),
      Metric.update(loopDelayP99, p99),
      Metric.update(loopDelayMax, max)
    ])
  })

/** Every metric of the process in Prometheus' text format, `gauges` and the process's read first. */
export const scrape = <R>(gauges: Effect.Effect<void, never, R>, loop: ELDHistogram) =>
  Effect.gen(function* () {
    yield* gauges
    yield* processGauges(loop)
    return HttpServerResponse.text(yield* PrometheusMetrics.format(), { contentType: "text/plain; version=0.0.4" })
  })
