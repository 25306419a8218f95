/**
 * `org create|list|set-limits`: the organizations that own keys, vendors and integrations, and an
 * organization's own rate limit, all its keys together, in place of `ORG_RATE_LIMIT_*`.
 */
import { Effect, Option } from "effect"
import { Argument, Command, Flag } from "effect/cli"
import { Directory, DirectoryRefused } from "../../core/receivables/services/Directory.ts"
import type { Organization } from "../../core/shared/ports/Organizations.ts"
import { Organizations } from "../../core/shared/ports/Organizations.ts"
import { json, print, time } from "./Common.ts"

const orgJson = (org: Organization) => ({
  id: org.id,
  name: org.name,
  created_at: time(org.createdAt),
  rate_limit: org.rateLimit === null ? null : { per_second: org.rateLimit.perSecond, burst: org.rateLimit.burst }
})

const orgLine = (org: Organization) =>
  `${org.id}  ${org.name}${org.rateLimit === null ? "" : `  rate limit ${org.rateLimit.perSecond}/s, burst ${org.rateLimit.burst}`}`

const orgCreate = Command.make(
  "create",
  { name: Flag.String("name").pipe(Flag.withDescription("The organization's name")), json },
  Effect.fn(function* ({ name, json }) {
    const org = yield* (yield* Organizations).create(name)
    yield* print(json, orgJson(org), () => [orgLine(org)])
  })
).pipe(Command.withDescription("Create an organization"))

const orgList = Command.make(
  "list",
  { json },
  Effect.fn(function* ({ json }) {
    const orgs = yield* (yield* Organizations).list
    yield* print(json, orgs.map(orgJson), () => (orgs.length === 0 ? ["no organizations"] : orgs.map(orgLine)))
  })
).pipe(Command.withDescription("List organizations"))

const orgSetLimits = Command.make(
  "set-limits",
  {
    org: Argument.String("org-id").pipe(Argument.withDescription("The organization's id")),
    perSecond: Flag.String("per-second").pipe(
      Flag.withDescription("Requests per second that refill the organization's burst"),
      Flag.optional
    ),
    burst: Flag.String("burst").pipe(
      Flag.withDescription("Requests the organization's keys together may make at once"),
      Flag.optional
    ),
    json
  },
  Effect.fn(function* ({ org, perSecond, burst, json }) {
    if (Option.isSome(perSecond) !== Option.isSome(burst)) {
      return yield* new DirectoryRefused({
        message:
          "give both --per-second and --burst, or neither to return to ORG_RATE_LIMIT_PER_SECOND and ORG_RATE_LIMIT_BURST"
      })
    }
    const limit =
      Option.isSome(perSecond) && Option.isSome(burst)
        ? { perSecond: Number(perSecond.value), burst: Number(burst.value) }
        : null
    const changed = yield* (yield* Directory).setOrganizationRateLimit(org, limit)
    yield* print(json, orgJson(changed), () => [
      changed.rateLimit === null
        ? `${changed.id}  ${changed.name}  rate limit: the default (ORG_RATE_LIMIT_PER_SECOND, ORG_RATE_LIMIT_BURST)`
        : orgLine(changed)
    ])
  })
).pipe(
  Command.withDescription(
    "Set an organization's own rate limit, all its keys together (per process, taking effect within KEY_CACHE_SECONDS); neither flag: back to the default"
  )
)

export const org = Command.make("org").pipe(
  Command.withDescription("Organizations"),
  Command.withSubcommands([orgCreate, orgList, orgSetLimits])
)
