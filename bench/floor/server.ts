/**
 * The floor of `bench/api`: what our read path costs without our HTTP layer. The services the app
 * runs (the core `Receivables` over the PostgreSQL store, key verification with its cache, the
 * audit log's group commit) and the same JSON encoder, behind a bare `node:http` server: no
 * HttpApi routing or query decoding, no validation, no rate limiter, no metrics, no error
 * envelope. Our server's figures less these are what its HTTP layer costs; a latency target this
 * server misses is out of reach of any HTTP layer over the same data path.
 *
 * `FLOOR_AUDIT=off` leaves the audit write out as well, which the contract forbids: what the
 * statements alone allow. It serves the benchmark's well-formed requests only.
 * Run by `bench/api/run.ts`; not part of the product.
 */
import { createServer } from "node:http"
import { DateTime, Effect, Layer, ManagedRuntime, Redacted } from "effect"
import { randomSource } from "../../adapters/ids/RandomIds.ts"
import * as Database from "../../adapters/postgres/Database.ts"
import { ServicesLive } from "../../app/Layers.ts"
import { AuditLog } from "../../core/access/ports/AuditLog.ts"
import { ApiKeys } from "../../core/access/services/ApiKeys.ts"
import * as Wire from "../../core/api/Wire.ts"
import type { Status } from "../../core/receivables/domain/Status.ts"
import { Receivables } from "../../core/receivables/services/Receivables.ts"
import type { DebtorId, OrgId, VendorId } from "../../core/shared/domain/Ids.ts"

const audited = process.env.FLOOR_AUDIT !== "off"
const runtime = ManagedRuntime.make(ServicesLive.pipe(Layer.provide(Database.layer)))
const requestIdBytes = randomSource(12)
const singlePath = "/v1/receivables/"

const answer = (url: URL, org: OrgId) =>
  Effect.gen(function* () {
    const receivables = yield* Receivables
    const query = url.searchParams
    const historyLimit = Number(query.get("history_limit") ?? 10)
    if (url.pathname.startsWith(singlePath)) {
      return Wire.receivable(yield* receivables.get(org, url.pathname.slice(singlePath.length), historyLimit))
    }
    const page = Number(query.get("page") ?? 1)
    const limit = Number(query.get("limit") ?? 100)
    const list = yield* receivables.list(org, {
      vendorId: (query.get("vendor_id") ?? undefined) as VendorId | undefined,
      debtorId: (query.get("debtor_id") ?? undefined) as DebtorId | undefined,
      status: (query.get("status") ?? undefined) as Status | undefined,
      verifiedSince: query.get("verified_since") ?? undefined,
      expand: query.getAll("expand[]") as Array<"history" | "metadata">,
      historyLimit,
      page,
      limit
    })
    return Wire.page(list.items, Wire.receivable, list.hasMore, list.totalCount)
  })

const serve = (method: string, target: string, authorization: string, clientAddress: string | null) =>
  Effect.gen(function* () {
    const started = yield* DateTime.now
    const startedNanos = process.hrtime.bigint()
    const url = new URL(target, "http://localhost")
    const owner = yield* (yield* ApiKeys).verify(Redacted.make(authorization.slice("Bearer ".length)))
    const body = JSON.stringify(yield* answer(url, owner.orgId))
    const requestId = `req_${requestIdBytes().toString("hex")}`
    if (audited) {
      yield* (yield* AuditLog).record({
        at: started,
        requestId,
        keyId: owner.keyId,
        orgId: owner.orgId,
        method,
        path: url.pathname,
        query: url.search.slice(1),
        status: 200,
        durationMs: Number(process.hrtime.bigint() - startedNanos) / 1e6,
        clientAddress
      })
    }
    return { body, requestId }
  })

const server = createServer((request, response) => {
  const run = serve(
    request.method ?? "GET",
    request.url ?? "/",
    request.headers.authorization ?? "",
    request.socket.remoteAddress ?? null
  )
  runtime.runPromise(run).then(
    ({ body, requestId }) => {
      response.writeHead(200, { "content-type": "application/json", "request-id": requestId })
      response.end(body)
    },
    (error: unknown) => {
      response.writeHead(500, { "content-type": "text/plain" })
      response.end(String(error))
    }
  )
})

// The pool, the key cache and the audit writer are up before the first request is taken.
await runtime.runPromise(Effect.void)
server.listen(Number(process.env.PORT ?? 3200), "127.0.0.1")
const stop = () => {
  server.close(() => void runtime.dispose().then(() => process.exit(0)))
  server.closeAllConnections()
}
process.on("SIGTERM", stop)
process.on("SIGINT", stop)
