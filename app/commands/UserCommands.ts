/**
 * `user invite`: a dashboard user for an organization, invited through a one-time link that sets
 * their password. The link (its token) is printed once and never stored: only its SHA-256 is.
 * `user role` and `user remove`: as an admin does on the dashboard's team page; the user's
 * sessions end at once.
 */
import { DateTime, Effect, Redacted } from "effect"
import { Command, Flag } from "effect/cli"
import { Accounts } from "../../core/accounts/services/Accounts.ts"
import { Team } from "../../core/admin/services/Team.ts"
import type { OrgId } from "../../core/shared/domain/Ids.ts"
import { baseUrl, inviteLink } from "../PublicUrl.ts"
import { json, orgFlag, print } from "./Common.ts"

const userInvite = Command.make(
  "invite",
  {
    org: orgFlag,
    email: Flag.String("email").pipe(Flag.withDescription("The user's e-mail address, used to sign in")),
    role: Flag.Literals("role", ["admin", "member"]).pipe(
      Flag.withDescription("admin manages the organization's keys; member reads")
    ),
    json
  },
  Effect.fn(function* ({ org, email, role, json }) {
    const { token, invite } = yield* (yield* Accounts).invite(org, email, role)
    const link = inviteLink(yield* baseUrl, Redacted.value(token))
    const expires = DateTime.formatIso(invite.expiresAt)
    yield* print(
      json,
      { link, email: invite.email, role: invite.role, org_id: invite.orgId, expires_at: expires },
      () => [
        link,
        "",
        `Invite for ${invite.email} (${invite.role}) of organization ${invite.orgId}.`,
        `Send it to them: it sets their password once, until ${expires}, and is not shown again.`
      ]
    )
  })
).pipe(Command.withDescription("Invite a dashboard user (prints a one-time link)"))

const emailFlag = Flag.String("email").pipe(Flag.withDescription("The user's e-mail address"))

const userRole = Command.make(
  "role",
  {
    org: orgFlag,
    email: emailFlag,
    role: Flag.Literals("role", ["admin", "member"]).pipe(Flag.withDescription("The user's new role")),
    json
  },
  Effect.fn(function* ({ org, email, role, json }) {
    yield* (yield* Team).changeRoleByEmail(org as OrgId, email, role)
    yield* print(json, { email: email.trim().toLowerCase(), role, org_id: org }, () => [
      `${email.trim().toLowerCase()} is now ${role}; their sessions have ended.`
    ])
  })
).pipe(Command.withDescription("Change a dashboard user's role (ends their sessions)"))

const userRemove = Command.make(
  "remove",
  { org: orgFlag, email: emailFlag, json },
  Effect.fn(function* ({ org, email, json }) {
    yield* (yield* Team).removeByEmail(org as OrgId, email)
    yield* print(json, { email: email.trim().toLowerCase(), removed: true, org_id: org }, () => [
      `${email.trim().toLowerCase()} is removed; their sessions have ended.`
    ])
  })
).pipe(Command.withDescription("Remove a dashboard user (ends their sessions)"))

export const user = Command.make("user").pipe(
  Command.withDescription("Dashboard users"),
  Command.withSubcommands([userInvite, userRole, userRemove])
)
