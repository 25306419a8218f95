/** `audit tail|prune`: the most recent requests, and the retention applied now. */
import { Effect, Option, Schema } from "effect"
import { Command, Flag } from "effect/cli"
import { OrganizationNotFound } from "../../core/access/ports/ApiKeyStore.ts"
import { AuditLog } from "../../core/access/ports/AuditLog.ts"
import { OrgId } from "../../core/shared/domain/Ids.ts"
import { json, print, time } from "./Common.ts"

const auditTail = Command.make(
  "tail",
  {
    org: Flag.String("org").pipe(Flag.withDescription("Only this organization's requests"), Flag.optional),
    limit: Flag.Int("limit").pipe(Flag.withDescription("How many entries, newest first"), Flag.withDefault(20)),
    json
  },
  Effect.fn(function* ({ org, limit, json }) {
    const orgId = Option.getOrUndefined(org)
    if (orgId !== undefined && !Schema.is(OrgId)(orgId)) return yield* new OrganizationNotFound({ id: orgId })
    const entries = yield* (yield* AuditLog).recent({ orgId, limit })
    yield* print(
      json,
      entries.map((e) => ({
        at: time(e.at),
        request_id: e.requestId,
        key_id: e.keyId,
        org_id: e.orgId,
        method: e.method,
        path: e.path,
        query: e.query,
        status: e.status,
        duration_ms: e.durationMs,
        client_address: e.clientAddress
      })),
      () =>
        entries.length === 0
          ? ["no requests recorded"]
          : entries.map((e) =>
              [
                time(e.at),
                e.status,
                e.method,
                e.path + (e.query === "" ? "" : `?${e.query}`),
                `${e.durationMs.toFixed(1)}ms`,
                e.keyId ?? "-",
                e.clientAddress ?? "-",
                e.requestId
              ].join("  ")
            )
    )
  })
).pipe(Command.withDescription("Show the most recent requests of the audit log"))

const auditPrune = Command.make(
  "prune",
  { json },
  Effect.fn(function* ({ json }) {
    const AuditRetention = yield* Effect.promise(() => import("../AuditRetention.ts"))
    const changes = yield* AuditRetention.apply
    const days = yield* AuditRetention.retentionDays
    yield* print(json, { retention_days: days, changes }, () => [
      `retention: ${days} days (AUDIT_RETENTION_DAYS)`,
      ...(changes.length === 0
        ? ["nothing to do: the coming months have their partitions and no month is past the retention"]
        : changes.map((change) => `${change.action} ${change.partition}`))
    ])
  })
).pipe(
  Command.withDescription(
    "Apply the audit log's retention now: drop the monthly partitions older than AUDIT_RETENTION_DAYS, create the coming ones"
  )
)

export const audit = Command.make("audit").pipe(
  Command.withDescription("The audit log of API requests"),
  Command.withSubcommands([auditTail, auditPrune])
)
