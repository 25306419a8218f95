/**
 * Prometheus metrics at `GET /metrics` (text exposition format): requests by route and status,
 * a latency histogram by route, sync runs by outcome, pairs overdue and the audit queue depth.
 * Routes are the patterns of `RequestPath` (never raw paths, which would grow without bound). Like the
 * probes it needs no key and is not audited: keep it on the operators' network.
 */
import { Context, Effect, Layer } from "effect"
import { HttpRouter, HttpServerResponse } from "effect/http"
import { SqlClient } from "effect/sql"
import { AuditLog } from "../../core/ports/AuditLog.ts"

const buckets = [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10]

export class Metrics extends Context.Service<
  Metrics,
  {
    /** `route` is the route's pattern (`RequestPath`), or `unmatched`: never a raw path, which would grow without bound. */
    readonly observeRequest: (method: string, route: string, status: number, seconds: number) => void
    readonly observeSyncRun: (outcome: "succeeded" | "failed") => void
    readonly render: () => string
  }
>()("adapters/http/Metrics") {}

export const make = () => {
  const requests = new Map<string, number>()
  const latency = new Map<string, { counts: Array<number>; sum: number; count: number }>()
  const syncRuns = new Map<string, number>([
    ["succeeded", 0],
    ["failed", 0]
  ])
  const label = (value: string) => value.replace(/["\\\n]/g, "_")

  return Metrics.of({
    observeRequest: (method, route, status, seconds) => {
      const key = `route="${label(route)}",method="${label(method)}",status="${status}"`
      requests.set(key, (requests.get(key) ?? 0) + 1)
      const histogram = latency.get(route) ?? { counts: buckets.map(() => 0), sum: 0, count: 0 }
      buckets.forEach((bound, i) => {
        if (seconds <= bound) histogram.counts[i]! += 1
      })
      histogram.sum += seconds
      histogram.count += 1
      latency.set(route, histogram)
    },
    observeSyncRun: (outcome) => {
      syncRuns.set(outcome, (syncRuns.get(outcome) ?? 0) + 1)
    },
    render: () => {
      const lines = [
        "# HELP http_requests_total HTTP requests answered, by route, method and status.",
        "# TYPE http_requests_total counter",
        ...[...requests].map(([key, value]) => `http_requests_total{${key}} ${value}`),
        "# HELP http_request_duration_seconds Time to answer a request, by route.",
        "# TYPE http_request_duration_seconds histogram",
        ...[...latency].flatMap(([route, h]) => [
          ...buckets.map(
            (bound, i) => `http_request_duration_seconds_bucket{route="${label(route)}",le="${bound}"} ${h.counts[i]}`
          ),
          `http_request_duration_seconds_bucket{route="${label(route)}",le="+Inf"} ${h.count}`,
          `http_request_duration_seconds_sum{route="${label(route)}"} ${h.sum}`,
          `http_request_duration_seconds_count{route="${label(route)}"} ${h.count}`
        ]),
        "# HELP sync_runs_total Pair syncs run by this process, by outcome.",
        "# TYPE sync_runs_total counter",
        ...[...syncRuns].map(([outcome, value]) => `sync_runs_total{outcome="${outcome}"} ${value}`)
      ]
      return lines.join("\n")
    }
  })
}

export const layer = Layer.sync(Metrics, make)

/** `GET /metrics`: the counters above, and two figures read at scrape time. */
export const routes = HttpRouter.use(
  Effect.fn(function* (router) {
    const metrics = yield* Metrics
    const sql = yield* SqlClient.SqlClient
    const audit = yield* AuditLog
    yield* router.add(
      "GET",
      "/metrics",
      Effect.gen(function* () {
        const [overdue] = yield* sql<{ n: bigint }>`
          SELECT count(*) AS n FROM integrations
          WHERE paused_at IS NULL AND next_sync_at < now() - interval '1 minute'`.pipe(Effect.orDie)
        const queued = yield* audit.pending
        return HttpServerResponse.text(
          [
            metrics.render(),
            "# HELP sync_pairs_overdue Unpaused pairs whose sync is more than a minute late.",
            "# TYPE sync_pairs_overdue gauge",
            `sync_pairs_overdue ${Number(overdue!.n)}`,
            "# HELP audit_queue_depth Audit entries waiting to be committed.",
            "# TYPE audit_queue_depth gauge",
            `audit_queue_depth ${queued}`,
            ""
          ].join("\n"),
          { contentType: "text/plain; version=0.0.4" }
        )
      })
    )
  })
)
