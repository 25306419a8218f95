/** `key create|list|revoke|usage`, with their presenters: a key is printed once, at creation. */
import { Effect, Redacted } from "effect"
import { Argument, Command, Flag } from "effect/cli"
import { permissions } from "../../core/access/domain/ApiKey.ts"
import type { ApiKeyRecord } from "../../core/access/ports/ApiKeyStore.ts"
import { ApiKeys } from "../../core/access/services/ApiKeys.ts"
import { json, print, time } from "./Common.ts"

const keyJson = (record: ApiKeyRecord) => ({
  id: record.id,
  org_id: record.orgId,
  name: record.name,
  display_start: record.displayStart,
  permissions: record.permissions,
  created_at: time(record.createdAt),
  revoked_at: time(record.revokedAt),
  last_used_at: time(record.lastUsedAt)
})

const keyLine = (record: ApiKeyRecord) =>
  [
    record.id,
    `${record.displayStart}…`,
    record.name === "" ? "(no name)" : record.name,
    record.permissions.length === 0 ? "read-only" : `read, ${record.permissions.join(", ")}`,
    record.revokedAt === null ? "active" : `revoked ${time(record.revokedAt)}`,
    `last used ${time(record.lastUsedAt) ?? "never"}`
  ].join("  ")

const keyCreate = Command.make(
  "create",
  {
    org: Flag.String("org").pipe(Flag.withDescription("The organization's id")),
    name: Flag.String("name").pipe(Flag.withDescription("A name to recognise the key by"), Flag.withDefault("")),
    permission: Flag.Literals("permission", permissions).pipe(
      Flag.withDescription(
        "What the key may do beyond reading: webhooks (manage the organization's webhook endpoints); repeat for several. Without it the key is read-only"
      ),
      Flag.atLeast(0)
    ),
    json
  },
  Effect.fn(function* ({ org, name, permission, json }) {
    const { key, record } = yield* (yield* ApiKeys).create(org, name, permission)
    yield* print(json, { ...keyJson(record), key: Redacted.value(key) }, () => [
      Redacted.value(key),
      "",
      `API key ${record.id} for organization ${record.orgId}, ${record.permissions.length === 0 ? "read-only" : `allowed to read and to manage ${record.permissions.join(", ")}`}.`,
      "Store it now: it is shown only this once, and only its SHA-256 is kept."
    ])
  })
).pipe(Command.withDescription("Create an API key (printed once)"))

const keyList = Command.make(
  "list",
  { org: Flag.String("org").pipe(Flag.withDescription("The organization's id")), json },
  Effect.fn(function* ({ org, json }) {
    const records = yield* (yield* ApiKeys).list(org)
    yield* print(json, records.map(keyJson), () => (records.length === 0 ? ["no API keys"] : records.map(keyLine)))
  })
).pipe(Command.withDescription("List an organization's API keys (never the keys themselves)"))

const keyRevoke = Command.make(
  "revoke",
  { id: Argument.String("key-id").pipe(Argument.withDescription("The key's id")), json },
  Effect.fn(function* ({ id, json }) {
    const record = yield* (yield* ApiKeys).revoke(id)
    yield* print(json, keyJson(record), () => [`revoked ${record.id} at ${time(record.revokedAt)}`])
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
      () => [
        keyLine(record),
        ...(days.length === 0
          ? ["no requests yet"]
          : ["day         2xx      4xx      5xx"].concat(
              days.map(
                (d) =>
                  `${d.day}  ${String(d.requests2xx).padEnd(8)} ${String(d.requests4xx).padEnd(8)} ${d.requests5xx}`
              )
            ))
      ]
    )
  })
).pipe(Command.withDescription("Requests per day of an API key, and its last use"))

export const key = Command.make("key").pipe(
  Command.withDescription("API keys"),
  Command.withSubcommands([keyCreate, keyList, keyRevoke, keyUsage])
)
