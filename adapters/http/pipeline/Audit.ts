/**
 * The audit entry of a request, built here and nowhere else, whatever ended the request: an
 * answer, a refusal, a client that hung up (499), or a request line Node itself refused
 * (`NodeServer`). The step commits the entry before the answer leaves, so no answered request is
 * missing from the log; a request that cannot be recorded is answered 503 with `Retry-After` instead
 * of its answer.
 * An answer written as it is read (a stream) has its entry committed before its last bytes: the
 * message ends only after it, and a client that hangs up on the way is recorded as 499.
 * The write is bounded (`AUDIT_WRITE_TIMEOUT_SECONDS`): past it the answer leaves, the entry is
 * logged at error level, and if that write then fails, the log keeps the entry and commits it when
 * the database answers (`AuditLog.keep`); a request refused because its entry could not be written
 * has the refusal's entry kept the same way.
 * The key itself never reaches the log: paths and queries are kept with keys and the dashboard's
 * tokens redacted (`RequestContext`), and a key is named by its id.
 */
import { Cause, Clock, Config, DateTime, Effect, Exit, Option, Schema, Scope, Stream } from "effect"
import { HttpBody, HttpServerResponse } from "effect/http"
import { type AuditEntry, AuditLog } from "../../../core/access/ports/AuditLog.ts"
import { ServiceUnavailable } from "../../../core/api/Errors.ts"
import { clientClosedRequest } from "./Failures.ts"
import * as Refusals from "./Refusals.ts"
import type { RequestContext } from "./RequestContext.ts"
import type { Step } from "./Step.ts"

/** How long an answer waits for its entry to be committed (`AUDIT_WRITE_TIMEOUT_SECONDS`, 5). */
export const writeTimeoutSeconds = Config.schema(
  Schema.FiniteFromString.check(Schema.isBetween({ minimum: 0.05, maximum: 60 })),
  "AUDIT_WRITE_TIMEOUT_SECONDS"
).pipe(Config.withDefault(5))

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

/**
 * Runs `write` for at most `millis`: true once it succeeds, false past the time (it goes on
 * where it is, and `late` runs if it fails after all), undefined if it fails in time. One fiber and
 * one timer, where `Effect.timeoutOption` raced two fibers: on every request that was measured at
 * several times the cost of the rest of the step.
 */
const within = <E>(write: Effect.Effect<void, E>, millis: number, late: Effect.Effect<void>) =>
  Effect.withFiber((parent) =>
    Effect.callback<boolean | undefined>((resume) => {
      let settled = false
      const settle = (outcome: boolean | undefined) => {
        if (settled) return
        settled = true
        resume(Effect.succeed(outcome))
      }
      const writing = Effect.runForkWith(parent.context)(write)
      const timer = setTimeout(() => settle(false), millis)
      writing.addObserver((exit) => {
        clearTimeout(timer)
        if (settled && !Exit.isSuccess(exit)) Effect.runForkWith(parent.context)(late)
        settle(Exit.isSuccess(exit) ? true : undefined)
      })
      return Effect.sync(() => clearTimeout(timer))
    })
  )

/** The entry as a log line shows it: every field, none of them secret (see `entryOf`). */
const loggedEntry = (entry: AuditEntry) => ({ ...entry, at: DateTime.formatIso(entry.at) })

export const step = Effect.gen(function* () {
  const audit = yield* AuditLog
  const timeoutMillis = (yield* Effect.orDie(writeTimeoutSeconds)) * 1000

  /**
   * Records `request`'s entry with `status`: true once committed or, past the timeout, logged
   * (the log keeps it if the write fails after all); false when the log refused it, and then the
   * entry of what is answered instead (`status` again, or `refusedStatus`) is kept.
   */
  const record = (request: RequestContext, status: number, refusedStatus = status) =>
    Effect.flatMap(Clock.currentTimeNanos, (answered) => {
      request.answeredNanos = answered
      const durationMs = request.millisUntil(answered)
      const entry = entryOf(request, status, durationMs)
      return Effect.flatMap(within(audit.record(entry), timeoutMillis, audit.keep(entry)), (recorded) => {
        if (recorded === undefined) return Effect.as(audit.keep(entryOf(request, refusedStatus, durationMs)), false)
        if (recorded) return Effect.succeed(true)
        return Effect.as(
          Effect.logError("audit entry not committed in time: answered, kept for the database and logged here").pipe(
            Effect.annotateLogs({ auditEntry: loggedEntry(entry) })
          ),
          true
        )
      })
    })

  const unavailable = (request: RequestContext) =>
    Refusals.unavailable(
      request,
      ServiceUnavailable.auditUnavailable(request.requestId),
      `The service is unavailable: the request could not be recorded, so it was not answered (${request.requestId}). Try again in ${Refusals.retryAfterSeconds} seconds.`
    )

  /**
   * A streamed answer: its entry is committed after its last piece and before the message ends,
   * or the connection is dropped (a truncated answer, never one that looks whole). Whatever ends
   * it otherwise (a hang-up, a fault, a body never written) is recorded when the request's scope
   * closes.
   */
  const streamed = (request: RequestContext, response: HttpServerResponse.HttpServerResponse, body: HttpBody.Stream) =>
    Effect.gen(function* () {
      let recorded = false
      const scope = yield* Effect.serviceOption(Scope.Scope)
      if (Option.isSome(scope)) {
        yield* Scope.addFinalizerExit(scope.value, (exit) => {
          if (recorded) return Effect.void
          // Interrupted: the client hung up (the server then also reports the answer it could not
          // finish, as a defect beside the interruption). Never written at all: the client had gone.
          const hungUp = Exit.isSuccess(exit) || exit.cause.reasons.some(Cause.isInterruptReason)
          return Effect.asVoid(record(request, hungUp ? clientClosedRequest : 500))
        })
      }
      const end = Effect.flatMap(record(request, response.status), (kept) => {
        recorded = true
        return kept ? Effect.void : Effect.die(new Error("the audit entry of a streamed answer could not be written"))
      })
      return HttpServerResponse.setBody(
        response,
        HttpBody.stream(Stream.concat(body.stream, Stream.fromEffectDrain(end)), body.contentType)
      )
    })

  return ((request, next) =>
    Effect.flatMap(next, (response) => {
      // A HEAD answer's body is never written: it is answered, and recorded, as its head leaves.
      if (response.body._tag === "Stream" && request.method !== "HEAD")
        return streamed(request, response, response.body)
      return Effect.map(record(request, response.status, 503), (kept) => (kept ? response : unavailable(request)))
    })) satisfies Step
})
