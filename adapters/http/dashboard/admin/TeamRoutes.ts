/**
 * The team pages (admins only; members get a 403 from each handler, and from the core):
 * the users, a role changed, a user removed after a confirmation, and an invite whose link is
 * shown once on the page its redirect leads to (`ShownOnce.ts`).
 */
import { Effect, Redacted } from "effect"
import { HttpRouter } from "effect/http"
import { Role } from "../../../../core/accounts/domain/Dashboard.ts"
import { Accounts } from "../../../../core/accounts/services/Accounts.ts"
import { Team } from "../../../../core/admin/services/Team.ts"
import { type Guarded, type Guards, htmlPage, notFound, queryOf, seeOther, viewerOf } from "../frame/Handlers.ts"
import * as Pages from "../frame/Pages.ts"
import * as ShownOnce from "../frame/ShownOnce.ts"
import * as TeamPages from "./TeamPages.ts"

const inviteLink: ShownOnce.ShownOnce = { name: "pr_invite_link", path: TeamPages.invitedPath }

const isRole = (value: string): value is Role => Role.literals.some((role) => role === value)

export const register = Effect.fnUntraced(function* (router: HttpRouter.HttpRouter, guards: Guards) {
  const team = yield* Team
  const access = yield* Accounts
  const { context, signedIn, signedInChange } = guards

  const forbidden = (session: Guarded) =>
    htmlPage(
      Pages.refusal("Not allowed", "Only an admin of your organization manages its team.", viewerOf(session)),
      403
    )

  /** The team page with a message, or the refusal for a member. */
  const teamPage = (
    session: Guarded,
    clientAddress: string | null,
    messages: { problem?: string; notice?: string },
    status = 200
  ) =>
    Effect.all([
      team.members({ user: session.user, clientAddress }),
      team.pendingInvites({ user: session.user, clientAddress })
    ]).pipe(
      Effect.map(([members, invites]) =>
        htmlPage(TeamPages.team(viewerOf(session), members, invites, messages), status)
      ),
      Effect.catchTag("NotPermitted", () => Effect.succeed(forbidden(session)))
    )

  yield* router.add(
    "GET",
    TeamPages.teamPath,
    signedIn((session, clientAddress) =>
      Effect.flatMap(context, ({ request }) => {
        const query = queryOf(request)
        const notice = query.has("changed")
          ? "The role is changed: the user's sessions have ended."
          : query.has("removed")
            ? "The user is removed: their sessions have ended."
            : query.has("invite_revoked")
              ? "The invite is revoked: its link no longer works."
              : undefined
        return teamPage(session, clientAddress, notice === undefined ? {} : { notice })
      })
    )
  )

  yield* router.add(
    "POST",
    TeamPages.invitePath,
    signedInChange((session, clientAddress, field) => {
      const role = field("role")
      if (!isRole(role)) return teamPage(session, clientAddress, { problem: "Not invited: choose a role." }, 400)
      return team.invite({ user: session.user, clientAddress }, field("email"), role).pipe(
        Effect.flatMap(({ token }) =>
          Effect.flatMap(context, ({ origin }) =>
            ShownOnce.redirect(
              inviteLink,
              session.user.orgId,
              seeOther(TeamPages.invitedPath),
              Redacted.value(token),
              origin.secure
            )
          )
        ),
        Effect.catchTags({
          NotPermitted: () => Effect.succeed(forbidden(session)),
          InvalidEmail: () =>
            teamPage(session, clientAddress, { problem: "Not invited: that is not an e-mail address." }, 400),
          EmailTaken: () =>
            teamPage(
              session,
              clientAddress,
              { problem: "Not invited: that address belongs to another organization." },
              409
            )
        })
      )
    })
  )

  yield* router.add(
    "POST",
    TeamPages.revokeInvitePath,
    signedInChange((session, clientAddress, field) =>
      team.revokeInvite({ user: session.user, clientAddress }, field("email")).pipe(
        Effect.map(() => seeOther(`${TeamPages.teamPath}?invite_revoked`)),
        Effect.catchTags({
          NotPermitted: () => Effect.succeed(forbidden(session)),
          InviteNotFound: () =>
            teamPage(
              session,
              clientAddress,
              { problem: "Not revoked: no invite of that address is waiting (used, expired or revoked already)." },
              404
            )
        })
      )
    )
  )

  yield* router.add(
    "GET",
    TeamPages.invitedPath,
    signedIn((session) =>
      Effect.gen(function* () {
        if (session.user.role !== "admin") return forbidden(session)
        const { request, origin } = yield* context
        const carried = yield* ShownOnce.take(inviteLink, session.user.orgId, request, origin.secure)
        const token = carried.value ?? ""
        const invite = yield* Effect.option(access.inviteFor(token))
        // Only a usable link of the admin's own organization is shown.
        const answer =
          invite._tag === "None" || invite.value.orgId !== session.user.orgId
            ? seeOther(TeamPages.teamPath)
            : htmlPage(
                TeamPages.invited(
                  viewerOf(session),
                  invite.value,
                  `${origin.secure ? "https" : "http"}://${request.headers.host ?? "localhost"}/dashboard/invite/${token}`
                )
              )
        return yield* carried.clear(answer)
      })
    )
  )

  yield* router.add(
    "POST",
    "/dashboard/team/:id/role",
    signedInChange((session, clientAddress, field) =>
      Effect.gen(function* () {
        const id = (yield* HttpRouter.params).id ?? ""
        const role = field("role")
        if (!isRole(role)) return yield* teamPage(session, clientAddress, { problem: "Choose a role." }, 400)
        return yield* team.changeRole({ user: session.user, clientAddress }, id, role).pipe(
          Effect.map(() => seeOther(`${TeamPages.teamPath}?changed`)),
          Effect.catchTags({
            NotPermitted: () => Effect.succeed(forbidden(session)),
            UserNotFound: () => Effect.succeed(notFound),
            LastAdmin: () =>
              teamPage(
                session,
                clientAddress,
                { problem: "Not changed: the organization would have no admin left." },
                409
              )
          })
        )
      })
    )
  )

  yield* router.add(
    "GET",
    "/dashboard/team/:id/remove",
    signedIn((session, clientAddress) =>
      Effect.gen(function* () {
        const id = ((yield* HttpRouter.params).id ?? "").toLowerCase()
        const members = yield* Effect.option(team.members({ user: session.user, clientAddress }))
        if (members._tag === "None") return forbidden(session)
        const member = members.value.find((candidate) => candidate.id === id && candidate.removedAt === null)
        return member === undefined ? notFound : htmlPage(TeamPages.confirmRemove(viewerOf(session), member))
      })
    )
  )

  yield* router.add(
    "POST",
    "/dashboard/team/:id/remove",
    signedInChange((session, clientAddress) =>
      Effect.gen(function* () {
        const id = (yield* HttpRouter.params).id ?? ""
        return yield* team.remove({ user: session.user, clientAddress }, id).pipe(
          // Removing oneself ends one's own session too: the way out is the sign-in page.
          Effect.map(() => seeOther(`${TeamPages.teamPath}?removed`)),
          Effect.catchTags({
            NotPermitted: () => Effect.succeed(forbidden(session)),
            UserNotFound: () => Effect.succeed(notFound),
            LastAdmin: () =>
              teamPage(
                session,
                clientAddress,
                { problem: "Not removed: the organization would have no admin left." },
                409
              )
          })
        )
      })
    )
  )
})
