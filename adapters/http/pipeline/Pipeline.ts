/**
 * The request pipeline: every request the service answers, API or dashboard, routed or not,
 * meets these steps in this order, each a module of its own. A step may answer without the rest
 * (a refusal), or run the rest and change its answer. The request itself is one value
 * (`RequestContext`) made on arrival and passed to every step.
 *
 * The probes (`/health` and `/ready`, exactly) skip from the first step to the last: they must
 * answer about the database, not depend on it, so they are not audited; `/ready`, which asks the
 * database, is limited per client address by a budget of its own, held in the process.
 */
import { Clock, Effect, type Types } from "effect"
import { HttpRouter, HttpServerRequest, type HttpServerResponse } from "effect/http"
import * as ApiKeys from "../../../core/access/services/ApiKeys.ts"
import { IdSource } from "../../../core/shared/ports/IdSource.ts"
import * as ReadyBudget from "../probes/ReadyBudget.ts"
import * as AddressBudget from "./AddressBudget.ts"
import * as Audit from "./Audit.ts"
import { ClientAddress } from "./ClientAddress.ts"
import * as Cors from "./Cors.ts"
import * as Deadline from "./Deadline.ts"
import * as Failures from "./Failures.ts"
import * as Observe from "./Observe.ts"
import * as RateLimitHeaders from "./RateLimitHeaders.ts"
import { RequestContext } from "./RequestContext.ts"
import * as RequestIdHeader from "./RequestIdHeader.ts"
import * as RequestPath from "./RequestPath.ts"
import { chain } from "./Step.ts"
import * as Transfer from "./Transfer.ts"
import * as UnknownPath from "./UnknownPath.ts"

export const layer = HttpRouter.middleware(
  Effect.gen(function* () {
    const ids = yield* IdSource
    const clients = yield* ClientAddress
    const dashboardMounted = yield* RequestPath.DashboardMounted
    const readyBudget = yield* ReadyBudget.step
    const keyBrand = yield* ApiKeys.brand
    const steps = [
      RequestIdHeader.step, // every answer names its request
      Observe.step, // counted in the metrics and logged, with the status that left
      yield* Cors.decorateStep, // an allowed origin may read the answer
      yield* Audit.step, // the entry is committed before the answer leaves, or 503
      yield* AddressBudget.step, // requests no key vouches for: limited per client address
      UnknownPath.step, // a path that names no route: 404
      yield* Cors.preflightStep, // an allowed origin's preflight: 204
      RateLimitHeaders.step, // where the caller's key stands with its rate limit
      yield* Transfer.step // ETag, 304 and compression
    ]
    // Innermost: the router (the key's check, its limits and the handlers run there) within the
    // request's deadline, and what its failures (a deadline passed among them) are answered with.
    const deadline = yield* Effect.orDie(Deadline.deadlineSeconds)
    return (
      router
    ): Effect.Effect<HttpServerResponse.HttpServerResponse, Types.unhandled, HttpServerRequest.HttpServerRequest> => {
      const answered = Failures.run(router, deadline)
      const request = chain(steps, answered)
      const probe = chain([RequestIdHeader.step, readyBudget], answered)
      return Effect.flatMap(HttpServerRequest.HttpServerRequest, (incoming) =>
        Effect.flatMap(Clock.currentTimeNanos, (startedNanos) => {
          const peer = incoming.remoteAddress._tag === "Some" ? incoming.remoteAddress.value : undefined
          const context = new RequestContext({
            requestId: ids.requestId(),
            method: incoming.method,
            target: incoming.url,
            startedMillis: Number(startedNanos / 1_000_000n),
            startedNanos,
            clientAddress: clients.of(peer, incoming.headers["x-forwarded-for"]),
            secure: clients.https(peer, incoming.headers["x-forwarded-proto"]),
            dashboardMounted,
            headers: incoming.headers,
            keyBrand
          })
          return context.route?.probe === true ? probe(context) : request(context)
        })
      )
    }
  }),
  { global: true }
)
