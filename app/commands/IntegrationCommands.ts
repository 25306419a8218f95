/**
 * `integration create|list|show|pause|resume`, with their presenters. A connector's configuration
 * is checked by the directory, which names the field it refuses.
 */
import { Duration, Effect, Option } from "effect"
import { Argument, Command, Flag } from "effect/cli"
import type { IntegrationRecord } from "../../core/receivables/ports/DirectoryStore.ts"
import { Directory, DirectoryRefused } from "../../core/receivables/services/Directory.ts"
import { json, orgFlag, print, time } from "./Common.ts"

export const integrationJson = (i: IntegrationRecord) => ({
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
      Flag.withDescription(
        "The connector's kind: simulator, file, http-json, cxml, coupa, peppol, fr-lifecycle (docs/operators.md, Portals)"
      )
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
    yield* print(input.json, integrationJson(integration), () => [integrationLine(integration)])
  })
).pipe(Command.withDescription("Connect a vendor-debtor pair to its debtor's portal"))

const integrationList = Command.make(
  "list",
  { org: orgFlag, json },
  Effect.fn(function* ({ org, json }) {
    const integrations = yield* (yield* Directory).listIntegrations(org)
    yield* print(json, integrations.map(integrationJson), () =>
      integrations.length === 0 ? ["no integrations"] : integrations.map(integrationLine)
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
      error: r.error,
      portal_retry_at: time(r.portalRetryAt ?? null)
    }))
    yield* print(json, { ...integrationJson(integration), runs: runJson }, () => [
      integrationLine(integration),
      ...(runs.length === 0
        ? ["no runs yet"]
        : runs.map(
            (r) =>
              `  ${time(r.startedAt)}  ${r.outcome ?? "running"}  fetched ${r.fetched}, created ${r.created}, updated ${r.updated}, unchanged ${r.unchanged}, quarantined ${r.quarantined}${r.error === null ? "" : `  ${r.error}`}${r.portalRetryAt === undefined ? "" : `  (the portal asked to wait until ${time(r.portalRetryAt)})`}`
          ))
    ])
  })
).pipe(Command.withDescription("An integration's schedule, last runs and last error"))

const setPaused = (paused: boolean) =>
  Command.make(
    paused ? "pause" : "resume",
    { id: integrationId, json },
    Effect.fn(function* ({ id, json }) {
      const integration = yield* (yield* Directory).setPaused(id, paused)
      yield* print(json, integrationJson(integration), () => [integrationLine(integration)])
    })
  ).pipe(
    Command.withDescription(
      paused ? "Stop syncing an integration" : "Sync an integration again, at the next sync its schedule planned"
    )
  )

export const integration = Command.make("integration").pipe(
  Command.withDescription("Integrations: vendor-debtor pairs and their portals"),
  Command.withSubcommands([integrationCreate, integrationList, integrationShow, setPaused(true), setPaused(false)])
)
