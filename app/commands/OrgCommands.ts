/** `org create|list`: the organizations that own keys, vendors and integrations. */
import { Effect } from "effect"
import { Command, Flag } from "effect/cli"
import { Organizations } from "../../core/ports/Organizations.ts"
import { json, print, time } from "./Common.ts"

const orgCreate = Command.make(
  "create",
  { name: Flag.String("name").pipe(Flag.withDescription("The organization's name")), json },
  Effect.fn(function* ({ name, json }) {
    const org = yield* (yield* Organizations).create(name)
    yield* print(json, { id: org.id, name: org.name, created_at: time(org.createdAt) }, () => [
      `${org.id}  ${org.name}`
    ])
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
      () => (orgs.length === 0 ? ["no organizations"] : orgs.map((org) => `${org.id}  ${org.name}`))
    )
  })
).pipe(Command.withDescription("List organizations"))

export const org = Command.make("org").pipe(
  Command.withDescription("Organizations"),
  Command.withSubcommands([orgCreate, orgList])
)
