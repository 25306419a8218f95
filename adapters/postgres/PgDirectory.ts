/**
 * `Directory` over PostgreSQL. Ids are checked for their form before any query, so a mistyped id
 * is "no such ...", never a database error; a connector's configuration is checked against the
 * connector's schema, and a refusal names the field at fault.
 */
import { DateTime, Duration, Effect, Layer, Option, Result, Schema } from "effect"
import { SqlClient } from "effect/sql"
import {
  type DebtorRecord,
  Directory,
  DirectoryRefused,
  type IntegrationRecord,
  type NewIntegration,
  type SyncRunRecord,
  type VendorRecord
} from "../../core/ports/Directory.ts"
import { PortalConnectors, validateConfig } from "../../core/ports/PortalConnector.ts"
import { isDeadline, leaseDuration, maxDeadline, minDeadline } from "../../core/services/SyncEngine.ts"
import type { PairRow } from "./Rows.ts"

const isUuid = Schema.is(Schema.String.check(Schema.isUUID()))
const refuse = (message: string) => new DirectoryRefused({ message })
const utc = (date: Date) => DateTime.fromDateUnsafe(date)

interface IntegrationRow extends PairRow {
  readonly paused_at: Date | null
  readonly next_sync_at: Date | null
  readonly last_outcome: string | null
  readonly last_error: string | null
}

const toIntegration = (row: IntegrationRow): IntegrationRecord => ({
  id: row.id,
  orgId: row.org_id,
  vendor: { id: row.vendor_id, name: row.vendor_name },
  debtor: { id: row.debtor_id, name: row.debtor_name },
  connector: row.connector,
  interval: Duration.millis(Number(row.interval_ms)),
  deadline: row.deadline_ms === null ? null : Duration.millis(Number(row.deadline_ms)),
  paused: row.paused_at !== null,
  nextSyncAt: row.next_sync_at === null ? null : utc(row.next_sync_at),
  lastOutcome: row.last_outcome,
  lastError: row.last_error,
  consecutiveFailures: row.consecutive_failures
})

export const layer = Layer.effect(
  Directory,
  Effect.gen(function* () {
    const sql = yield* SqlClient.SqlClient
    const connectors = yield* PortalConnectors

    const selectIntegrations = sql`
      SELECT i.id, i.org_id, i.vendor_id, v.name AS vendor_name, i.debtor_id, d.name AS debtor_name, i.connector,
        extract(epoch FROM i.sync_interval) * 1000 AS interval_ms,
        extract(epoch FROM i.sync_deadline) * 1000 AS deadline_ms, i.paused_at, i.next_sync_at, i.last_outcome,
        i.last_error, i.consecutive_failures
      FROM integrations i JOIN vendors v ON v.id = i.vendor_id JOIN debtors d ON d.id = i.debtor_id`

    const exists = (table: "organizations" | "vendors" | "debtors", id: string, org?: string) =>
      isUuid(id)
        ? sql`SELECT 1 FROM ${sql(table)} WHERE id = ${id} ${org === undefined ? sql`` : sql`AND org_id = ${org}`}`.pipe(
            Effect.orDie,
            Effect.map((rows) => rows.length > 0)
          )
        : Effect.succeed(false)

    const requireOrg = (org: string) =>
      Effect.flatMap(exists("organizations", org), (found) =>
        found ? Effect.void : Effect.fail(refuse(`no organization with id "${org}"`))
      )

    const named = (name: string) =>
      name.trim().length === 0 ? Effect.fail(refuse("a name must not be empty")) : Effect.succeed(name.trim())

    const createVendor = Effect.fn("PgDirectory.createVendor")(function* (org: string, name: string) {
      yield* requireOrg(org)
      const [row] = yield* sql<{ id: string; org_id: string; name: string; created_at: Date }>`
        INSERT INTO vendors (org_id, name) VALUES (${org}, ${yield* named(name)}) RETURNING *`.pipe(Effect.orDie)
      return {
        id: row!.id,
        orgId: row!.org_id,
        name: row!.name,
        createdAt: utc(row!.created_at)
      } satisfies VendorRecord
    })

    const listVendors = Effect.fn("PgDirectory.listVendors")(function* (org: string) {
      yield* requireOrg(org)
      const rows = yield* sql<{ id: string; org_id: string; name: string; created_at: Date }>`
        SELECT * FROM vendors WHERE org_id = ${org} ORDER BY name, id`.pipe(Effect.orDie)
      return rows.map(
        (row): VendorRecord => ({ id: row.id, orgId: row.org_id, name: row.name, createdAt: utc(row.created_at) })
      )
    })

    const createDebtor = Effect.fn("PgDirectory.createDebtor")(function* (name: string) {
      const [row] = yield* sql<{ id: string; name: string; created_at: Date }>`
        INSERT INTO debtors (name) VALUES (${yield* named(name)}) RETURNING *`.pipe(Effect.orDie)
      return { id: row!.id, name: row!.name, createdAt: utc(row!.created_at) } satisfies DebtorRecord
    })

    const listDebtors = sql<{
      id: string
      name: string
      created_at: Date
    }>`SELECT * FROM debtors ORDER BY name, id`.pipe(
      Effect.orDie,
      Effect.map((rows) =>
        rows.map((row): DebtorRecord => ({ id: row.id, name: row.name, createdAt: utc(row.created_at) }))
      )
    )

    const findIntegration = (id: string) =>
      isUuid(id)
        ? sql<IntegrationRow>`${selectIntegrations} WHERE i.id = ${id}`.pipe(
            Effect.orDie,
            Effect.flatMap((rows) =>
              rows[0] === undefined
                ? Effect.fail(refuse(`no integration with id "${id}"`))
                : Effect.succeed(toIntegration(rows[0]))
            )
          )
        : Effect.fail(refuse(`no integration with id "${id}"`))

    const createIntegration = Effect.fn("PgDirectory.createIntegration")(function* (input: NewIntegration) {
      yield* requireOrg(input.org)
      if (!(yield* exists("vendors", input.vendor, input.org))) {
        return yield* refuse(`no vendor with id "${input.vendor}" in organization ${input.org}`)
      }
      if (!(yield* exists("debtors", input.debtor))) return yield* refuse(`no debtor with id "${input.debtor}"`)
      const connector = connectors.get(input.connector)
      if (Option.isNone(connector)) return yield* refuse(`no connector of kind "${input.connector}"`)
      const refusal = validateConfig(connector.value, input.config)
      if (Result.isFailure(refusal)) {
        const { field, message } = refusal.failure
        return yield* refuse(
          `invalid ${input.connector} configuration${field === "" ? "" : ` at "${field}"`}: ${message}`
        )
      }
      const interval = input.interval ?? connector.value.defaultInterval
      if (Duration.toMillis(interval) < 60_000) return yield* refuse("the interval must be at least one minute")
      const deadline = input.deadline
      if (deadline !== undefined && !isDeadline(deadline)) {
        return yield* refuse(
          `the deadline must be between ${Duration.format(minDeadline)} and ${Duration.format(maxDeadline)} (a sync's lease is ${Duration.format(leaseDuration)})`
        )
      }
      const rows = yield* sql<{ id: string }>`
        INSERT INTO integrations (org_id, vendor_id, debtor_id, connector, config, sync_interval, sync_deadline,
          next_sync_at)
        VALUES (${input.org}, ${input.vendor}, ${input.debtor}, ${input.connector}, ${JSON.stringify(input.config)}::jsonb,
          ${Duration.toMillis(interval)} * interval '1 millisecond',
          ${deadline === undefined ? null : Duration.toMillis(deadline)} * interval '1 millisecond', now())
        ON CONFLICT (org_id, vendor_id, debtor_id) DO NOTHING
        RETURNING id`.pipe(Effect.orDie)
      if (rows[0] === undefined) return yield* refuse("this vendor and debtor already have an integration")
      return yield* findIntegration(rows[0].id)
    })

    const listIntegrations = Effect.fn("PgDirectory.listIntegrations")(function* (org: string) {
      yield* requireOrg(org)
      const rows = yield* sql<IntegrationRow>`
        ${selectIntegrations} WHERE i.org_id = ${org} ORDER BY v.name, d.name, i.id`.pipe(Effect.orDie)
      return rows.map(toIntegration)
    })

    const showIntegration = Effect.fn("PgDirectory.showIntegration")(function* (id: string) {
      const integration = yield* findIntegration(id)
      const runs = yield* sql<{
        started_at: Date
        finished_at: Date | null
        outcome: string | null
        fetched: number
        created: number
        updated: number
        unchanged: number
        quarantined: number
        error: string | null
      }>`
        SELECT started_at, finished_at, outcome, fetched, created, updated, unchanged, quarantined, error
        FROM sync_runs WHERE org_id = ${integration.orgId} AND integration_id = ${id}
        ORDER BY started_at DESC LIMIT 10`.pipe(Effect.orDie)
      return {
        integration,
        runs: runs.map(
          (run): SyncRunRecord => ({
            startedAt: utc(run.started_at),
            finishedAt: run.finished_at === null ? null : utc(run.finished_at),
            outcome: run.outcome,
            fetched: run.fetched,
            created: run.created,
            updated: run.updated,
            unchanged: run.unchanged,
            quarantined: run.quarantined,
            error: run.error
          })
        )
      }
    })

    const setPaused = Effect.fn("PgDirectory.setPaused")(function* (id: string, paused: boolean) {
      yield* findIntegration(id)
      // A paused pair has no next sync, so its receivables show none; resuming schedules it now.
      yield* sql`
        UPDATE integrations SET paused_at = ${paused ? sql`coalesce(paused_at, now())` : sql`NULL`},
          next_sync_at = ${paused ? sql`NULL` : sql`coalesce(next_sync_at, now())`}
        WHERE id = ${id}`.pipe(Effect.orDie)
      return yield* findIntegration(id)
    })

    return Directory.of({
      createVendor,
      listVendors,
      createDebtor,
      listDebtors,
      createIntegration,
      listIntegrations,
      showIntegration,
      setPaused
    })
  })
)
