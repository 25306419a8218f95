/**
 * The demo: an organization with a few vendors, debtors and simulator integrations, synced once,
 * and an API key to read them with. On the embedded database the app seeds it at start when the
 * database is empty (unless `DEMO_SEED=false`), with an invite to the dashboard for the demo's
 * admin when the dashboard is on; on a `DATABASE_URL`, only with `DEMO_SEED=true`. `npm run cli --
 * demo seed` adds one on demand.
 */
import { Config, Duration, Effect, Option, Redacted } from "effect"
import * as Database from "../adapters/postgres/Database.ts"
import { ApiKeys } from "../core/access/services/ApiKeys.ts"
import { Accounts } from "../core/accounts/services/Accounts.ts"
import { PairStore } from "../core/receivables/ports/PairStore.ts"
import { Directory } from "../core/receivables/services/Directory.ts"
import { SyncEngine } from "../core/receivables/services/SyncEngine.ts"
import { Organizations } from "../core/shared/ports/Organizations.ts"

/**
 * `DEMO_SEED`, by default on for the embedded database only: a database of one's own
 * (`DATABASE_URL`) is a production one until said otherwise, and a demo there is an organization
 * with simulated pairs syncing forever and a live key printed into the logs.
 */
export const enabled = Config.all({
  seed: Config.option(Config.Boolean("DEMO_SEED")),
  database: Database.settings
}).pipe(Config.map(({ seed, database }) => Option.getOrElse(seed, () => Option.isNone(database.url))))

const vendors = ["Northwind Components", "Acme Industrial Supply", "Blue Harbor Logistics"]
const debtors = ["Globex Corporation", "Initech Retail", "Umbrella Foods"]
// Which vendor bills which debtor: five pairs.
const pairs: ReadonlyArray<readonly [number, number]> = [
  [0, 0],
  [0, 1],
  [1, 0],
  [1, 2],
  [2, 1]
]

export interface DemoSeed {
  readonly orgId: string
  readonly key: Redacted.Redacted<string>
  readonly receivables: number
  readonly vendorId: string
}

export const seed = Effect.fn("Demo.seed")(function* () {
  const organizations = yield* Organizations
  const directory = yield* Directory
  const keys = yield* ApiKeys
  const store = yield* PairStore
  const engine = yield* SyncEngine
  const org = yield* organizations.create("Demo Factoring")
  const vendorRecords = yield* Effect.forEach(vendors, (name) => directory.createVendor(org.id, name))
  const debtorRecords = yield* Effect.forEach(debtors, (name) => directory.createDebtor(name))
  const startedAt = new Date(Date.now() - 120 * 86_400_000).toISOString()
  const integrations = yield* Effect.forEach(pairs, ([v, d], index) =>
    directory.createIntegration({
      org: org.id,
      vendor: vendorRecords[v]!.id,
      debtor: debtorRecords[d]!.id,
      connector: "simulator",
      config: { seed: 1000 + index, receivables: 120, startedAt, perDay: 1 + index },
      interval: Duration.hours(1)
    })
  )
  let receivables = 0
  for (const integration of integrations) {
    const outcome = yield* engine.runPair(yield* store.get(integration.id), "demo")
    if (outcome._tag === "Succeeded") receivables += outcome.counts.created
  }
  const { key } = yield* keys.create(org.id, "demo")
  return { orgId: org.id, key, receivables, vendorId: vendorRecords[0]!.id } satisfies DemoSeed
})

/** The demo organization's admin, invited to the dashboard. */
export const adminEmail = "admin@demo.example"

/** A one-time link for the demo's admin to set a password; its token is returned once, here. */
export const inviteAdmin = Effect.fn("Demo.inviteAdmin")(function* (orgId: string) {
  const { token } = yield* (yield* Accounts).invite(orgId, adminEmail, "admin")
  return token
})

/** What a newcomer reads after the seed: the key and the invite, once, and requests to paste. */
export const welcome = (demo: DemoSeed, baseUrl: string, inviteLink?: Redacted.Redacted<string>) =>
  [
    "",
    `Demo data: organization ${demo.orgId}, ${demo.receivables} receivables from 5 simulated debtor portals.`,
    "Demo API key (shown once; create more with `npm run cli -- key create --org <id>`):",
    "",
    `  ${Redacted.value(demo.key)}`,
    "",
    "Try:",
    `  curl -H "Authorization: Bearer ${Redacted.value(demo.key)}" "${baseUrl}/v1/receivables?verified_since=all&limit=3"`,
    `  curl -H "Authorization: Bearer ${Redacted.value(demo.key)}" "${baseUrl}/v1/vendors"`,
    `  curl -H "Authorization: Bearer ${Redacted.value(demo.key)}" "${baseUrl}/v1/receivables?vendor_id=${demo.vendorId}&status=PAID&expand[]=history"`,
    `API reference: ${baseUrl}/docs`,
    ...(inviteLink === undefined
      ? []
      : [
          `Dashboard: ${baseUrl}/dashboard`,
          `Set the password of the demo's admin (${adminEmail}) through this one-time link, valid for 72 hours:`,
          `  ${Redacted.value(inviteLink)}`
        ]),
    ""
  ].join("\n")

/**
 * Runs `seedEmpty` if no organization exists yet, once across every process starting at the same
 * moment: under a session advisory lock on a direct connection (never through a pooler, which
 * would hand the lock's session to another client), held until `seedEmpty` is done, so the next
 * process to take it finds the organizations the first one made. `None` when the database was
 * not empty.
 */
export const seedOnce = <A, E, R>(seedEmpty: Effect.Effect<A, E, R>) =>
  Effect.scoped(
    Effect.gen(function* () {
      const direct = yield* Database.DirectClient
      const session = yield* direct.reserve
      const key = "hashtextextended('partner-receivables demo seed', 0)"
      yield* Effect.acquireRelease(session.executeUnprepared(`SELECT pg_advisory_lock(${key})`, [], undefined), () =>
        Effect.ignore(session.executeUnprepared(`SELECT pg_advisory_unlock(${key})`, [], undefined))
      )
      const organizations = yield* (yield* Organizations).list
      return organizations.length > 0 ? Option.none() : Option.some(yield* seedEmpty)
    })
  )
