/** `vendor create|list` and `debtor create|list`, with their presenters. */
import { Effect } from "effect"
import { Command, Flag } from "effect/cli"
import type { DebtorRecord, VendorRecord } from "../../core/receivables/ports/DirectoryStore.ts"
import { Directory } from "../../core/receivables/services/Directory.ts"
import { json, orgFlag, print, time } from "./Common.ts"

const vendorJson = (v: VendorRecord) => ({ id: v.id, org_id: v.orgId, name: v.name, created_at: time(v.createdAt) })
const debtorJson = (d: DebtorRecord) => ({ id: d.id, name: d.name, created_at: time(d.createdAt) })

const vendorCreate = Command.make(
  "create",
  { org: orgFlag, name: Flag.String("name").pipe(Flag.withDescription("The vendor's name")), json },
  Effect.fn(function* ({ org, name, json }) {
    const vendor = yield* (yield* Directory).createVendor(org, name)
    yield* print(json, vendorJson(vendor), () => [`${vendor.id}  ${vendor.name}`])
  })
).pipe(Command.withDescription("Create a vendor in an organization"))

const vendorList = Command.make(
  "list",
  { org: orgFlag, json },
  Effect.fn(function* ({ org, json }) {
    const vendors = yield* (yield* Directory).listVendors(org)
    yield* print(json, vendors.map(vendorJson), () =>
      vendors.length === 0 ? ["no vendors"] : vendors.map((v) => `${v.id}  ${v.name}`)
    )
  })
).pipe(Command.withDescription("List an organization's vendors"))

export const vendor = Command.make("vendor").pipe(
  Command.withDescription("Vendors (the companies that issue receivables)"),
  Command.withSubcommands([vendorCreate, vendorList])
)

const debtorCreate = Command.make(
  "create",
  { name: Flag.String("name").pipe(Flag.withDescription("The debtor's name")), json },
  Effect.fn(function* ({ name, json }) {
    const debtor = yield* (yield* Directory).createDebtor(name)
    yield* print(json, debtorJson(debtor), () => [`${debtor.id}  ${debtor.name}`])
  })
).pipe(Command.withDescription("Create a debtor (a buying company, shared by all organizations)"))

const debtorList = Command.make(
  "list",
  { json },
  Effect.fn(function* ({ json }) {
    const debtors = yield* (yield* Directory).listDebtors
    yield* print(json, debtors.map(debtorJson), () =>
      debtors.length === 0 ? ["no debtors"] : debtors.map((d) => `${d.id}  ${d.name}`)
    )
  })
).pipe(Command.withDescription("List debtors"))

export const debtor = Command.make("debtor").pipe(
  Command.withDescription("Debtors (the companies that owe)"),
  Command.withSubcommands([debtorCreate, debtorList])
)
