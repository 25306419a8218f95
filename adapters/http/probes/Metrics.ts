/**
 * The HTTP side's metrics, declared with effect's `Metric` where requests are answered, and the
 * scrape, which exports every metric of the process (the sync engine's among them) with effect's
 * Prometheus support. Two gauges are read at scrape time through ports: pairs overdue and the
 * audit queue. Routes are the patterns of `RequestPath` (never raw paths, which would grow
 * without bound). The scrape is served on a listener of its own (`MetricsListener.ts`), never on
 * the public port.
 */
import { Duration, Effect, Metric } from "effect"
import { HttpServerResponse } from "effect/http"
import { PrometheusMetrics } from "effect/observability"
import { AuditLog } from "../../../core/access/ports/AuditLog.ts"
import { PairStore } from "../../../core/receivables/ports/PairStore.ts"

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

const auditQueue = Metric.gauge("audit_queue_depth", { description: "Audit entries waiting to be committed." })

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

/** Every metric of the process in Prometheus' text format, the two gauges read first. */
export const scrape = Effect.gen(function* () {
  const pairs = yield* PairStore
  const audit = yield* AuditLog
  yield* Metric.update(overdue, yield* pairs.countOverdue(Duration.minutes(1)))
  yield* Metric.update(auditQueue, yield* audit.pending)
  return HttpServerResponse.text(yield* PrometheusMetrics.format(), { contentType: "text/plain; version=0.0.4" })
})
