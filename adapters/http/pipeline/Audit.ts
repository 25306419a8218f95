/**
 * The audit entry of a request, built here and nowhere else, whatever ended the request: an
 * answer, a refusal, a client that hung up (499), or a request line Node itself refused
 * (`NodeServer`). The step commits the entry before the answer leaves, so no answered request is
 * missing from the log; a request that cannot be recorded is answered 503 instead of its answer.
 * The key itself never reaches the log: paths and queries are kept with keys and the dashboard's
 * tokens redacted (`RequestContext`), and a key is named by its id.
 */
import { Clock, DateTime, Effect } from "effect"
import { ServiceUnavailable } from "../../../core/api/Errors.ts"
import { type AuditEntry, AuditLog } from "../../../core/ports/AuditLog.ts"
import * as Refusals from "./Refusals.ts"
import type { RequestContext } from "./RequestContext.ts"
import type { Step } from "./Step.ts"

/** The entry for `request`, answered with `status` after `durationMs`. */
export const entryOf = (request: RequestContext, status: number, durationMs: number): AuditEntry => ({
  at: DateTime.makeUnsafe(request.startedMillis),
  requestId: request.requestId,
  keyId: request.owner?.keyId ?? null,
  orgId: request.owner?.orgId ?? null,
  method: request.method,
  path: request.shownPath,
  query: request.shownQuery,
  status,
  durationMs,
  clientAddress: request.clientAddress
})

export const step = Effect.map(
  Effect.service(AuditLog),
  (audit): Step =>
    (request, next) =>
      Effect.flatMap(next, (response) =>
        Effect.flatMap(Clock.currentTimeNanos, (answered) => {
          request.answeredNanos = answered
          return Effect.map(
            Effect.exit(audit.record(entryOf(request, response.status, request.millisUntil(answered)))),
            (recorded) =>
              recorded._tag === "Success"
                ? response
                : Refusals.refuse(
                    request,
                    503,
                    { schema: ServiceUnavailable, error: ServiceUnavailable.auditUnavailable(request.requestId) },
                    `The request could not be recorded, so it was not answered (${request.requestId}).`
                  )
          )
        })
      )
)
