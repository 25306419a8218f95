/**
 * The operator CLI (`npm run cli -- <command>`): organizations and API keys, against
 * DATABASE_URL or the embedded database (shared with a running app). Every command prints a
 * readable answer, or JSON with `--json`; an unknown id or a bad argument is one line on stderr
 * and exit code 1.
 */
import { NodeRuntime, NodeServices } from "@effect/platform-node"
import { Cause, Console, DateTime, Effect, Exit, Layer, Option, Redacted, Schema } from "effect"
import { Argument, CliError, Command, Flag } from "effect/cli"
import * as Database from "../adapters/postgres/Database.ts"
import * as Migrations from "../adapters/postgres/Migrations.ts"
import * as PgApiKeys from "../adapters/postgres/PgApiKeys.ts"
import * as PgAuditLog from "../adapters/postgres/PgAuditLog.ts"
import * as PgOrganizations from "../adapters/postgres/PgOrganizations.ts"
import { type ApiKeyRecord, ApiKeys, OrganizationNotFound } from "../core/ports/ApiKeys.ts"
import { AuditLog } from "../core/ports/AuditLog.ts"
import { Organizations } from "../core/ports/Organizations.ts"
import { describeStartFailure } from "./StartFailure.ts"

const json = Flag.Boolean("json").pipe(Flag.withDescription("Print JSON for scripts"), Flag.withDefault(false))

const print = (asJson: boolean, value: unknown, text: () => string) =>
  Console.log(asJson ? JSON.stringify(value, null, 2) : text())

const time = (instant: DateTime.Utc | null) => (instant === null ? null : DateTime.formatIso(instant))

const keyJson = (record: ApiKeyRecord) => ({
  id: record.id,
  org_id: record.orgId,
  name: record.name,
  display_start: record.displayStart,
  created_at: time(record.createdAt),
  revoked_at: time(record.revokedAt),
  last_used_at: time(record.lastUsedAt)
})

const keyLine = (record: ApiKeyRecord) =>
  [
    record.id,
    `${record.displayStart}…`,
    record.name === "" ? "(no name)" : record.name,
    record.revokedAt === null ? "active" : `revoked ${time(record.revokedAt)}`,
    `last used ${time(record.lastUsedAt) ?? "never"}`
  ].join("  ")

const orgCreate = Command.make(
  "create",
  { name: Flag.String("name").pipe(Flag.withDescription("The organization's name")), json },
  Effect.fn(function* ({ name, json }) {
    const org = yield* (yield* Organizations).create(name)
    yield* print(json, { id: org.id, name: org.name, created_at: time(org.createdAt) }, () => `${org.id}  ${org.name}`)
  })
).pipe(Command.withDescription("Create an organization"))

const orgList = Command.make(
  "list",
  { json },
  Effect.fn(function* ({ json }) {
    const orgs = yield* (yield* Organizations).list
    yield* print(
      json,
      orgs.map((org) => ({ id: org.id, name: org.name, created_at: time(org.createdAt) })),
      () => (orgs.length === 0 ? "no organizations" : orgs.map((org) => `${org.id}  ${org.name}`).join("\n"))
    )
  })
).pipe(Command.withDescription("List organizations"))

const org = Command.make("org").pipe(
  Command.withDescription("Organizations"),
  Command.withSubcommands([orgCreate, orgList])
)

const keyCreate = Command.make(
  "create",
  {
    org: Flag.String("org").pipe(Flag.withDescription("The organization's id")),
    name: Flag.String("name").pipe(Flag.withDescription("A name to recognise the key by"), Flag.withDefault("")),
    json
  },
  Effect.fn(function* ({ org, name, json }) {
    const { key, record } = yield* (yield* ApiKeys).create(org, name)
    yield* print(json, { ...keyJson(record), key: Redacted.value(key) }, () =>
      [
        Redacted.value(key),
        "",
        `API key ${record.id} for organization ${record.orgId}.`,
        "Store it now: it is shown only this once, and only its SHA-256 is kept."
      ].join("\n")
    )
  })
).pipe(Command.withDescription("Create an API key (printed once)"))

const keyList = Command.make(
  "list",
  { org: Flag.String("org").pipe(Flag.withDescription("The organization's id")), json },
  Effect.fn(function* ({ org, json }) {
    const records = yield* (yield* ApiKeys).list(org)
    yield* print(json, records.map(keyJson), () =>
      records.length === 0 ? "no API keys" : records.map(keyLine).join("\n")
    )
  })
).pipe(Command.withDescription("List an organization's API keys (never the keys themselves)"))

const keyRevoke = Command.make(
  "revoke",
  { id: Argument.String("key-id").pipe(Argument.withDescription("The key's id")), json },
  Effect.fn(function* ({ id, json }) {
    const record = yield* (yield* ApiKeys).revoke(id)
    yield* print(json, keyJson(record), () => `revoked ${record.id} at ${time(record.revokedAt)}`)
  })
).pipe(Command.withDescription("Revoke an API key, from its very next request on"))

const keyUsage = Command.make(
  "usage",
  { id: Argument.String("key-id").pipe(Argument.withDescription("The key's id")), json },
  Effect.fn(function* ({ id, json }) {
    const { record, days } = yield* (yield* ApiKeys).usage(id)
    yield* print(
      json,
      {
        ...keyJson(record),
        days: days.map((d) => ({
          day: d.day,
          requests_2xx: d.requests2xx,
          requests_4xx: d.requests4xx,
          requests_5xx: d.requests5xx
        }))
      },
      () =>
        [
          keyLine(record),
          ...(days.length === 0
            ? ["no requests yet"]
            : ["day         2xx      4xx      5xx"].concat(
                days.map(
                  (d) =>
                    `${d.day}  ${String(d.requests2xx).padEnd(8)} ${String(d.requests4xx).padEnd(8)} ${d.requests5xx}`
                )
              ))
        ].join("\n")
    )
  })
).pipe(Command.withDescription("Requests per day of an API key, and its last use"))

const key = Command.make("key").pipe(
  Command.withDescription("API keys"),
  Command.withSubcommands([keyCreate, keyList, keyRevoke, keyUsage])
)

const auditTail = Command.make(
  "tail",
  {
    org: Flag.String("org").pipe(Flag.withDescription("Only this organization's requests"), Flag.optional),
    limit: Flag.Int("limit").pipe(Flag.withDescription("How many entries, newest first"), Flag.withDefault(20)),
    json
  },
  Effect.fn(function* ({ org, limit, json }) {
    const orgId = Option.getOrUndefined(org)
    if (orgId !== undefined && !isUuid(orgId)) return yield* new OrganizationNotFound({ id: orgId })
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
          ? "no requests recorded"
          : entries
              .map((e) =>
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
              .join("\n")
    )
  })
).pipe(Command.withDescription("Show the most recent requests of the audit log"))

const audit = Command.make("audit").pipe(
  Command.withDescription("The audit log of API requests"),
  Command.withSubcommands([auditTail])
)

export const cli = Command.make("partner-receivables").pipe(
  Command.withDescription("Operate the Partner Receivables service"),
  Command.withSubcommands([org, key, audit])
)

const isUuid = Schema.is(Schema.String.check(Schema.isUUID()))

const ServicesLive = Layer.mergeAll(PgApiKeys.layer, PgOrganizations.layer, PgAuditLog.layer).pipe(
  Layer.provide(Migrations.layer.pipe(Layer.provideMerge(Database.layer)))
)

// Domain refusals are one line on stderr and exit code 1; so is a database that cannot be used.
const oneLine = (cause: Cause.Cause<unknown>) => {
  const error = Cause.squash(cause) as { _tag?: string; id?: string }
  switch (error._tag) {
    case "OrganizationNotFound":
      return `no organization with id "${error.id}"`
    case "ApiKeyNotFound":
      return `no API key with id "${error.id}"`
    default:
      return describeStartFailure(cause)
  }
}

if (import.meta.main) {
  Command.run(cli, { version: "0.1.0" }).pipe(
    Effect.provide(ServicesLive),
    Effect.provide(NodeServices.layer),
    Effect.catchCause((cause) =>
      Effect.sync(() => {
        // The parser has already shown its own message and the usage.
        if (!CliError.isCliError(Cause.squash(cause))) process.stderr.write(`partner-receivables: ${oneLine(cause)}\n`)
        process.exitCode = 1
      })
    ),
    (program) =>
      NodeRuntime.runMain(program, {
        disableErrorReporting: true,
        teardown: (exit, onExit) =>
          onExit(Exit.isFailure(exit) && !Cause.hasInterruptsOnly(exit.cause) ? 1 : Number(process.exitCode ?? 0))
      })
  )
}
