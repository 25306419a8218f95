/**
 * The operator CLI (`npm run cli -- <command>`): organizations, API keys, vendors, debtors,
 * integrations, syncs, the demo and the audit log, against
 * DATABASE_URL or the embedded database (shared with a running app). Every command prints a
 * readable answer, or JSON with `--json`; an unknown id or a bad argument is one line on stderr
 * and exit code 1.
 */
import { NodeRuntime, NodeServices } from "@effect/platform-node"
import { Cause, Console, DateTime, Duration, Effect, Exit, Layer, Option, Redacted, Schema } from "effect"
import { Argument, CliError, Command, Flag } from "effect/cli"
import * as Connectors from "../adapters/portals/Connectors.ts"
import * as Database from "../adapters/postgres/Database.ts"
import * as Migrations from "../adapters/postgres/Migrations.ts"
import * as PgAuditLog from "../adapters/postgres/PgAuditLog.ts"
import { type ApiKeyRecord, ApiKeys, OrganizationNotFound } from "../core/ports/ApiKeys.ts"
import { AuditLog } from "../core/ports/AuditLog.ts"
import {
  type DebtorRecord,
  Directory,
  DirectoryRefused,
  type IntegrationRecord,
  type VendorRecord
} from "../core/ports/Directory.ts"
import { Organizations } from "../core/ports/Organizations.ts"
import { PairStore } from "../core/ports/PairStore.ts"
import * as Scheduler from "../core/services/Scheduler.ts"
import { type RunOutcome, SyncEngine } from "../core/services/SyncEngine.ts"
import * as AuditRetention from "./AuditRetention.ts"
import { status } from "./commands/StatusCommand.ts"
import * as Demo from "./Demo.ts"
import { AdminLive } from "./Layers.ts"
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

const orgFlag = Flag.String("org").pipe(Flag.withDescription("The organization's id"))

const vendorJson = (v: VendorRecord) => ({ id: v.id, org_id: v.orgId, name: v.name, created_at: time(v.createdAt) })
const debtorJson = (d: DebtorRecord) => ({ id: d.id, name: d.name, created_at: time(d.createdAt) })
const integrationJson = (i: IntegrationRecord) => ({
  id: i.id,
  org_id: i.orgId,
  vendor: i.vendor,
  debtor: i.debtor,
  connector: i.connector,
  interval_seconds: Duration.toSeconds(i.interval),
  deadline_seconds: i.deadline === null ? null : Duration.toSeconds(i.deadline),
  paused: i.paused,
  next_sync_at: time(i.nextSyncAt),
  last_outcome: i.lastOutcome,
  last_error: i.lastError,
  consecutive_failures: i.consecutiveFailures
})
const integrationLine = (i: IntegrationRecord) =>
  [
    i.id,
    `${i.vendor.name} → ${i.debtor.name}`,
    i.connector,
    `every ${Duration.format(i.interval)}`,
    i.paused ? "paused" : `next ${time(i.nextSyncAt) ?? "-"}`,
    i.lastOutcome === null ? "never run" : i.lastOutcome === "failed" ? `failed: ${i.lastError}` : "last run ok"
  ].join("  ")

const vendorCreate = Command.make(
  "create",
  { org: orgFlag, name: Flag.String("name").pipe(Flag.withDescription("The vendor's name")), json },
  Effect.fn(function* ({ org, name, json }) {
    const vendor = yield* (yield* Directory).createVendor(org, name)
    yield* print(json, vendorJson(vendor), () => `${vendor.id}  ${vendor.name}`)
  })
).pipe(Command.withDescription("Create a vendor in an organization"))

const vendorList = Command.make(
  "list",
  { org: orgFlag, json },
  Effect.fn(function* ({ org, json }) {
    const vendors = yield* (yield* Directory).listVendors(org)
    yield* print(json, vendors.map(vendorJson), () =>
      vendors.length === 0 ? "no vendors" : vendors.map((v) => `${v.id}  ${v.name}`).join("\n")
    )
  })
).pipe(Command.withDescription("List an organization's vendors"))

const vendor = Command.make("vendor").pipe(
  Command.withDescription("Vendors (the companies that issue receivables)"),
  Command.withSubcommands([vendorCreate, vendorList])
)

const debtorCreate = Command.make(
  "create",
  { name: Flag.String("name").pipe(Flag.withDescription("The debtor's name")), json },
  Effect.fn(function* ({ name, json }) {
    const debtor = yield* (yield* Directory).createDebtor(name)
    yield* print(json, debtorJson(debtor), () => `${debtor.id}  ${debtor.name}`)
  })
).pipe(Command.withDescription("Create a debtor (a buying company, shared by all organizations)"))

const debtorList = Command.make(
  "list",
  { json },
  Effect.fn(function* ({ json }) {
    const debtors = yield* (yield* Directory).listDebtors
    yield* print(json, debtors.map(debtorJson), () =>
      debtors.length === 0 ? "no debtors" : debtors.map((d) => `${d.id}  ${d.name}`).join("\n")
    )
  })
).pipe(Command.withDescription("List debtors"))

const debtor = Command.make("debtor").pipe(
  Command.withDescription("Debtors (the companies that owe)"),
  Command.withSubcommands([debtorCreate, debtorList])
)

/** `90s`, `15m`, `1h`, `2d`. */
const parseInterval = (text: string) => {
  const match = /^(\d+)\s*(s|m|h|d)$/.exec(text.trim())
  if (match === null) return undefined
  const amount = Number(match[1])
  return { s: Duration.seconds, m: Duration.minutes, h: Duration.hours, d: Duration.days }[
    match[2] as "s" | "m" | "h" | "d"
  ](amount)
}

const integrationCreate = Command.make(
  "create",
  {
    org: orgFlag,
    vendor: Flag.String("vendor").pipe(Flag.withDescription("The vendor's id")),
    debtor: Flag.String("debtor").pipe(Flag.withDescription("The debtor's id")),
    connector: Flag.String("connector").pipe(
      Flag.withDescription(`The connector's kind: ${Connectors.all.map((c) => c.kind).join(", ")}`)
    ),
    config: Flag.String("config").pipe(Flag.withDescription("The connector's configuration, as JSON")),
    interval: Flag.String("interval").pipe(
      Flag.withDescription("How often to sync: 90s, 15m, 1h, 2d (default: the connector's own)"),
      Flag.optional
    ),
    deadline: Flag.String("deadline").pipe(
      Flag.withDescription("The longest one sync may take, 10s to 9m: 90s, 5m (default: SYNC_DEADLINE_SECONDS)"),
      Flag.optional
    ),
    json
  },
  Effect.fn(function* (input) {
    const interval = Option.map(input.interval, parseInterval)
    if (Option.isSome(interval) && interval.value === undefined)
      return yield* new DirectoryRefused({
        message: `--interval "${Option.getOrThrow(input.interval)}" is not like 15m, 1h or 2d`
      })
    const deadline = Option.map(input.deadline, parseInterval)
    if (Option.isSome(deadline) && deadline.value === undefined)
      return yield* new DirectoryRefused({
        message: `--deadline "${Option.getOrThrow(input.deadline)}" is not like 90s or 5m`
      })
    const config = yield* Effect.try({
      try: () => JSON.parse(input.config) as unknown,
      catch: () => new DirectoryRefused({ message: "--config is not valid JSON" })
    })
    const integration = yield* (yield* Directory).createIntegration({
      ...input,
      config,
      interval: Option.getOrUndefined(interval),
      deadline: Option.getOrUndefined(deadline)
    })
    yield* print(input.json, integrationJson(integration), () => integrationLine(integration))
  })
).pipe(Command.withDescription("Connect a vendor-debtor pair to its debtor's portal"))

const integrationList = Command.make(
  "list",
  { org: orgFlag, json },
  Effect.fn(function* ({ org, json }) {
    const integrations = yield* (yield* Directory).listIntegrations(org)
    yield* print(json, integrations.map(integrationJson), () =>
      integrations.length === 0 ? "no integrations" : integrations.map(integrationLine).join("\n")
    )
  })
).pipe(Command.withDescription("List an organization's integrations"))

const integrationId = Argument.String("integration-id").pipe(Argument.withDescription("The integration's id"))

const integrationShow = Command.make(
  "show",
  { id: integrationId, json },
  Effect.fn(function* ({ id, json }) {
    const { integration, runs } = yield* (yield* Directory).showIntegration(id)
    const runJson = runs.map((r) => ({
      started_at: time(r.startedAt),
      finished_at: time(r.finishedAt),
      outcome: r.outcome,
      fetched: r.fetched,
      created: r.created,
      updated: r.updated,
      unchanged: r.unchanged,
      quarantined: r.quarantined,
      error: r.error
    }))
    yield* print(json, { ...integrationJson(integration), runs: runJson }, () =>
      [
        integrationLine(integration),
        ...(runs.length === 0
          ? ["no runs yet"]
          : runs.map(
              (r) =>
                `  ${time(r.startedAt)}  ${r.outcome ?? "running"}  fetched ${r.fetched}, created ${r.created}, updated ${r.updated}, unchanged ${r.unchanged}, quarantined ${r.quarantined}${r.error === null ? "" : `  ${r.error}`}`
            ))
      ].join("\n")
    )
  })
).pipe(Command.withDescription("An integration's schedule, last runs and last error"))

const setPaused = (paused: boolean) =>
  Command.make(
    paused ? "pause" : "resume",
    { id: integrationId, json },
    Effect.fn(function* ({ id, json }) {
      const integration = yield* (yield* Directory).setPaused(id, paused)
      yield* print(json, integrationJson(integration), () => integrationLine(integration))
    })
  ).pipe(Command.withDescription(paused ? "Stop syncing an integration" : "Sync an integration again, from now"))

const integration = Command.make("integration").pipe(
  Command.withDescription("Integrations: vendor-debtor pairs and their portals"),
  Command.withSubcommands([integrationCreate, integrationList, integrationShow, setPaused(true), setPaused(false)])
)

const outcomeLine = (outcome: RunOutcome) =>
  outcome._tag === "Succeeded"
    ? `${outcome.integrationId}  ok  fetched ${outcome.counts.fetched}, created ${outcome.counts.created}, updated ${outcome.counts.updated}, unchanged ${outcome.counts.unchanged}, quarantined ${outcome.counts.quarantined}`
    : `${outcome.integrationId}  failed: ${outcome.error} (retry at ${time(outcome.retryAt)})`

const syncRun = Command.make(
  "run",
  {
    integration: Flag.String("integration").pipe(Flag.withDescription("Only this integration"), Flag.optional),
    json
  },
  Effect.fn(function* ({ integration, json }) {
    const engine = yield* SyncEngine
    const worker = `cli:${process.pid}`
    const outcomes: Array<RunOutcome> = []
    const report = (outcome: RunOutcome) =>
      Effect.sync(() => outcomes.push(outcome)).pipe(
        Effect.andThen(json ? Effect.void : Console.log(outcomeLine(outcome)))
      )
    if (Option.isSome(integration)) {
      const pair = yield* (yield* PairStore)
        .get(integration.value)
        .pipe(Effect.mapError(() => new DirectoryRefused({ message: `no integration with id "${integration.value}"` })))
      yield* report(yield* engine.runPair(pair, worker))
    } else {
      yield* Scheduler.drain({ worker, concurrency: 4, onOutcome: report })
      if (!json && outcomes.length === 0) yield* Console.log("no integration is due")
    }
    if (json) {
      yield* Console.log(
        JSON.stringify(
          outcomes.map((o) =>
            o._tag === "Succeeded"
              ? { integration_id: o.integrationId, outcome: "succeeded", ...o.counts }
              : { integration_id: o.integrationId, outcome: "failed", error: o.error, retry_at: time(o.retryAt) }
          ),
          null,
          2
        )
      )
    }
    if (outcomes.some((o) => o._tag === "Failed")) process.exitCode = 1
  })
).pipe(Command.withDescription("Sync now: one integration, or every due one"))

const sync = Command.make("sync").pipe(
  Command.withDescription("Sync with debtor portals"),
  Command.withSubcommands([syncRun])
)

const demoSeed = Command.make(
  "seed",
  { json },
  Effect.fn(function* ({ json }) {
    const seeded = yield* Demo.seed()
    yield* print(json, { org_id: seeded.orgId, key: Redacted.value(seeded.key), receivables: seeded.receivables }, () =>
      Demo.welcome(seeded, "http://localhost:3000")
    )
  })
).pipe(Command.withDescription("Create a demo organization with simulated portals, synced, and an API key"))

const demo = Command.make("demo").pipe(Command.withDescription("Demo data"), Command.withSubcommands([demoSeed]))

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

const auditPrune = Command.make(
  "prune",
  { json },
  Effect.fn(function* ({ json }) {
    const changes = yield* AuditRetention.apply
    const days = yield* AuditRetention.retentionDays
    yield* print(json, { retention_days: days, changes }, () =>
      [
        `retention: ${days} days (AUDIT_RETENTION_DAYS)`,
        ...(changes.length === 0
          ? ["nothing to do: the coming months have their partitions and no month is past the retention"]
          : changes.map((change) => `${change.action} ${change.partition}`))
      ].join("\n")
    )
  })
).pipe(
  Command.withDescription(
    "Apply the audit log's retention now: drop the monthly partitions older than AUDIT_RETENTION_DAYS, create the coming ones"
  )
)

const audit = Command.make("audit").pipe(
  Command.withDescription("The audit log of API requests"),
  Command.withSubcommands([auditTail, auditPrune])
)

const isUuid = Schema.is(Schema.String.check(Schema.isUUID()))

const ServicesLive = Layer.mergeAll(AdminLive, PgAuditLog.layer).pipe(
  Layer.provideMerge(Migrations.layer.pipe(Layer.provideMerge(Database.layer)))
)

// Only the commands that need the database start it; `status` and `--help` do not.

export const cli = Command.make("partner-receivables").pipe(
  Command.withDescription("Operate the Partner Receivables service"),
  Command.withSubcommands([
    org.pipe(Command.provide(ServicesLive)),
    key.pipe(Command.provide(ServicesLive)),
    vendor.pipe(Command.provide(ServicesLive)),
    debtor.pipe(Command.provide(ServicesLive)),
    integration.pipe(Command.provide(ServicesLive)),
    sync.pipe(Command.provide(ServicesLive)),
    demo.pipe(Command.provide(ServicesLive)),
    audit.pipe(Command.provide(ServicesLive)),
    status
  ])
)

// Domain refusals are one line on stderr and exit code 1; so is a database that cannot be used.
const oneLine = (cause: Cause.Cause<unknown>) => {
  const error = Cause.squash(cause) as { _tag?: string; id?: string }
  switch (error._tag) {
    case "OrganizationNotFound":
      return `no organization with id "${error.id}"`
    case "ApiKeyNotFound":
      return `no API key with id "${error.id}"`
    case "DirectoryRefused":
      return (error as unknown as { message: string }).message
    default:
      return describeStartFailure(cause).join("; ")
  }
}

if (import.meta.main) {
  Command.run(cli, { version: "0.1.0" }).pipe(
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
