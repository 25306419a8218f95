/**
 * The audit step: one entry per request, built from the request as the pipeline decided it (keys
 * and invite tokens redacted, the caller's key by id), committed before the answer leaves; an
 * answer that cannot be recorded is replaced by 503.
 */
import { assert, describe, it } from "@effect/vitest"
import { ConfigProvider, DateTime, Deferred, Effect, Layer, Logger, References } from "effect"
import { HttpServerResponse } from "effect/http"
import * as Audit from "../../../../adapters/http/pipeline/Audit.ts"
import { makeApiKey, secretBytes } from "../../../../core/access/domain/ApiKey.ts"
import { layerMemory } from "../../../../core/access/memory/AuditLog.ts"
import { type AuditEntry, AuditLog, AuditLogUnavailable } from "../../../../core/access/ports/AuditLog.ts"
import { states as memoryStates } from "../../../../core/memory/MemoryStorage.ts"
import type { ApiKeyId, OrgId } from "../../../../core/shared/domain/Ids.ts"
import { bodyOf, counted, requestFor } from "./Requests.ts"

const key = makeApiKey("pr", new Uint8Array(secretBytes).fill(7))

describe("Audit.entryOf", () => {
  it("keeps the path and query with keys and invite tokens redacted, and the caller by key id", () => {
    const request = requestFor(`/v1/receivables?vendor_id=${key}&limit=5`)
    request.owner = { keyId: "key-1" as ApiKeyId, orgId: "org-1" as OrgId }
    const entry = Audit.entryOf(request, 200, 12.5)
    assert.notInclude(JSON.stringify(entry), key)
    assert.include(entry.query, "limit=5")
    assert.deepInclude(entry as unknown as Record<string, unknown>, {
      keyId: "key-1",
      orgId: "org-1",
      method: "GET",
      status: 200,
      durationMs: 12.5
    })
    assert.isTrue(DateTime.isDateTime(entry.at))
    const invite = Audit.entryOf(requestFor("/dashboard/invite/s3cret-token", { dashboardMounted: true }), 200, 1)
    assert.strictEqual(invite.path, "/dashboard/invite/[redacted]")
  })
})

describe("Audit.step", () => {
  it.effect("records one entry with the status that leaves, before answering", () =>
    Effect.gen(function* () {
      const step = yield* Audit.step
      const request = requestFor("/v1/vendors")
      const answer = yield* step(request, counted(HttpServerResponse.empty({ status: 304 })).next)
      assert.strictEqual(answer.status, 304)
      const entries = yield* (yield* AuditLog).recent({ limit: 10 })
      assert.deepStrictEqual(
        entries.map((e: AuditEntry) => [e.requestId, e.status]),
        [[request.requestId, 304]]
      )
      assert.isDefined(request.answeredNanos)
    }).pipe(Effect.provide(layerMemory.pipe(Layer.provide(memoryStates))))
  )

  it.effect("answers 503 service_unavailable when the entry cannot be recorded, and keeps the 503's entry", () => {
    const kept: Array<AuditEntry> = []
    return Effect.gen(function* () {
      const step = yield* Audit.step
      const request = requestFor("/v1/vendors")
      const answer = yield* step(request, counted().next)
      assert.strictEqual(answer.status, 503)
      assert.deepInclude((bodyOf(answer) as { error: object }).error, { type: "api_error" })
      assert.deepStrictEqual(
        kept.map((entry) => [entry.requestId, entry.status]),
        [[request.requestId, 503]]
      )
    }).pipe(
      Effect.provide(
        Layer.succeed(AuditLog, {
          record: () => Effect.fail(new AuditLogUnavailable({ message: "down" })),
          keep: (entry: AuditEntry) => Effect.sync(() => kept.push(entry)),
          recent: () => Effect.succeed([]),
          search: () => Effect.succeed([]),
          pending: Effect.succeed(0)
        } as never)
      )
    )
  })

  it.live("past the write timeout, a write that fails after the answer left has its entry kept", () => {
    const kept = Deferred.makeUnsafe<AuditEntry>()
    const failLater = Deferred.makeUnsafe<void, AuditLogUnavailable>()
    return Effect.gen(function* () {
      const step = yield* Audit.step
      const request = requestFor("/v1/vendors")
      const answer = yield* step(request, counted().next).pipe(Effect.provide(Logger.layer([])))
      assert.strictEqual(answer.status, 200)
      yield* Deferred.fail(failLater, new AuditLogUnavailable({ message: "connection lost" }))
      const entry = yield* Deferred.await(kept)
      assert.deepStrictEqual([entry.requestId, entry.status], [request.requestId, 200])
    }).pipe(
      Effect.provide(
        Layer.succeed(AuditLog, {
          record: () => Deferred.await(failLater),
          keep: (entry: AuditEntry) => Deferred.succeed(kept, entry),
          recent: () => Effect.succeed([]),
          search: () => Effect.succeed([]),
          pending: Effect.succeed(0)
        } as never)
      ),
      Effect.provide(ConfigProvider.layer(ConfigProvider.fromUnknown({ AUDIT_WRITE_TIMEOUT_SECONDS: "0.05" })))
    )
  })

  it.live("past the write timeout, answers and logs the entry at error level, without the key", () =>
    Effect.gen(function* () {
      const logged: Array<{ readonly level: string; readonly message: unknown; readonly annotations: unknown }> = []
      const logger = Logger.make(({ logLevel, message, fiber }) => {
        logged.push({ level: logLevel, message, annotations: fiber.getRef(References.CurrentLogAnnotations) })
      })
      const step = yield* Audit.step
      const request = requestFor(`/v1/receivables?vendor_id=${key}`)
      request.owner = { keyId: "key-1" as ApiKeyId, orgId: "org-1" as OrgId }
      const answer = yield* step(request, counted().next).pipe(Effect.provide(Logger.layer([logger])))
      assert.strictEqual(answer.status, 200)
      const [line] = logged.filter((entry) => entry.level === "Error")
      assert.isDefined(line)
      const text = JSON.stringify(line)
      assert.include(text, "audit entry not committed in time")
      assert.include(text, request.requestId)
      assert.include(text, "key-1")
      assert.notInclude(text, key)
    }).pipe(
      Effect.provide(
        Layer.succeed(AuditLog, {
          // A database that stops answering: the write neither succeeds nor fails.
          record: () => Effect.never,
          keep: () => Effect.void,
          recent: () => Effect.succeed([]),
          search: () => Effect.succeed([]),
          pending: Effect.succeed(0)
        } as never)
      ),
      // The shortest bound allowed, on the wall clock the step's timer runs on.
      Effect.provide(ConfigProvider.layer(ConfigProvider.fromUnknown({ AUDIT_WRITE_TIMEOUT_SECONDS: "0.05" })))
    )
  )
})
