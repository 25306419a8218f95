/**
 * The demo: an organization with a few vendors, debtors and simulator integrations, synced once,
 * and an API key to read them with. `npm start` seeds it on an empty database (unless
 * `DEMO_SEED=false`), with an invite to the dashboard for the demo's admin when the dashboard is
 * on; `npm run cli -- demo seed` adds one on demand.
 */
import { Config, Duration, Effect, Redacted } from "effect"
import { ApiKeys } from "../core/access/services/ApiKeys.ts"
import { Accounts } from "../core/accounts/services/Accounts.ts"
import { PairStore } from "../core/receivables/ports/PairStore.ts"
import { Directory } from "../core/receivables/services/Directory.ts"
import { SyncEngine } from "../core/receivables/services/SyncEngine.ts"
import { Organizations } from "../core/shared/ports/Organizations.ts"

export const enabled = Config.Boolean("DEMO_SEED").pipe(Config.withDefault(true))

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
