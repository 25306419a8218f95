/**
 * The dashboard's routes for getting in and out: sign-in (throttled by the core) and its second
 * step for users with a second factor, sign-out, sign-out everywhere, and the invite links that
 * set a password. Each sign-in issues a new session cookie, ending the one the browser had.
 */
import { Effect, Option, Redacted } from "effect"
import { HttpRouter, HttpServerResponse } from "effect/http"
import type { EndReason } from "../../../../core/accounts/ports/SessionStore.ts"
import { Accounts } from "../../../../core/accounts/services/Accounts.ts"
import {
  crossSite,
  formOf,
  type Guards,
  htmlPage,
  overviewPath,
  queryOf,
  seeOther,
  signInPath
} from "../frame/Handlers.ts"
import * as Pages from "../frame/Pages.ts"
import * as Security from "../frame/Security.ts"
import { accountPath, busyMessage, lockedFactor, signInCode, signInCodePath } from "./AccountPages.ts"
import { usedQuery } from "./RecoveryCodePages.ts"

/**
 * What the sign-in page tells someone whose session was ended for them, by the code its redirect
 * carries: fixed words that name nobody, so a crafted address tells nothing either.
 */
const endedNotices: Partial<Record<string, string>> = {
  role_changed: "You were signed out: an admin changed your role. Sign in again to go on with the new one.",
  removed: "You were signed out: an admin removed you from the organization. Ask an admin for a new invite.",
  signed_out_everywhere: "You were signed out: you signed out everywhere from another device or tab.",
  reinvited: "You were signed out: a new invite was sent to your address. Set your password through its link.",
  invite_redeemed: "You were signed out: your password was set again through an invite."
} satisfies Record<EndReason, string>

const wrongCode = "That code is wrong or was used already. Enter the app's current code."
const tryAgain = (seconds: number) => `Too many failed attempts. Try again in ${seconds} seconds.`

const throttled = (page: string, refused: { readonly retryAfterSeconds: number }, status = 429) =>
  HttpServerResponse.setHeader(htmlPage(page, status), "retry-after", String(refused.retryAfterSeconds))

const busy = (page: string, refused: { readonly retryAfterSeconds: number }) => throttled(page, refused, 503)

export const register = Effect.fnUntraced(function* (router: HttpRouter.HttpRouter, guards: Guards) {
  const access = yield* Accounts
  const { context, signedInChange, signedOut } = guards

  yield* router.add(
    "GET",
    signInPath,
    Effect.gen(function* () {
      const { request, token } = yield* context
      const session = token === undefined ? Option.none() : yield* Effect.option(access.authenticate(token))
      if (Option.isSome(session)) return seeOther(overviewPath)
      const signedOutJustNow = request.url === `${signInPath}?signed-out`
      const ended = endedNotices[queryOf(request).get("ended") ?? ""]
      const notice = signedOutJustNow ? "You are signed out." : ended
      return htmlPage(Pages.signIn(notice === undefined ? {} : { notice }))
    })
  )

  yield* router.add(
    "POST",
    signInPath,
    Effect.gen(function* () {
      const { request, origin, token } = yield* context
      if (!Security.isSameOrigin(request, origin.secure)) return crossSite()
      const field = yield* formOf(request)
      const email = field("email")
      return yield* access.signIn(email, Redacted.make(field("password")), origin.clientAddress, token).pipe(
        Effect.flatMap((signed) =>
          Security.withSession(seeOther(overviewPath), Redacted.value(signed.sessionToken), origin.secure)
        ),
        Effect.catchTags({
          SecondStepRequired: (required) => Effect.succeed(htmlPage(signInCode(required.token))),
          SignInRefused: (refused) =>
            Effect.succeed(
              refused.reason === "throttled"
                ? throttled(Pages.signIn({ email, problem: tryAgain(refused.retryAfterSeconds) }), refused)
                : refused.reason === "busy"
                  ? busy(Pages.signIn({ email, problem: busyMessage }), refused)
                  : htmlPage(Pages.signIn({ email, problem: "Wrong e-mail address or password." }), 401)
            )
        })
      )
    })
  )

  // The held sign-in's token is used up by any answer; a wrong code, or a moment's throttling,
  // holds the sign-in again under a new token, so the user types only the code again.
  yield* router.add(
    "POST",
    signInCodePath,
    Effect.gen(function* () {
      const { request, origin, token } = yield* context
      if (!Security.isSameOrigin(request, origin.secure)) return crossSite()
      const field = yield* formOf(request)
      return yield* access.signInWithCode(field("token"), field("code"), origin.clientAddress, token).pipe(
        // A wrong code entered since the last right one, or a recovery code used, leads to the
        // account page, which tells of it (and of how many recovery codes are left).
        Effect.flatMap((signed) =>
          Security.withSession(
            seeOther(
              signed.recoveryCodesLeft !== null
                ? `${accountPath}?${usedQuery}`
                : signed.wrongCodeTried === null
                  ? overviewPath
                  : accountPath
            ),
            Redacted.value(signed.sessionToken),
            origin.secure
          )
        ),
        Effect.catchTag("CodeRefused", (refused) =>
          Effect.succeed(
            refused.heldAgain !== undefined
              ? refused.reason === "throttled"
                ? throttled(signInCode(refused.heldAgain, tryAgain(refused.retryAfterSeconds)), refused)
                : htmlPage(signInCode(refused.heldAgain, wrongCode), 401)
              : refused.reason === "throttled"
                ? throttled(Pages.signIn({ problem: tryAgain(refused.retryAfterSeconds) }), refused)
                : refused.reason === "busy"
                  ? busy(Pages.signIn({ problem: busyMessage }), refused)
                  : refused.reason === "locked"
                    ? throttled(Pages.signIn({ problem: lockedFactor(refused.retryAfterSeconds) }), refused)
                    : htmlPage(Pages.signIn({ problem: "Wrong, used or late code. Sign in again." }), 401)
          )
        )
      )
    })
  )

  yield* router.add(
    "POST",
    "/dashboard/sign-out",
    signedInChange((session, clientAddress) => Effect.flatMap(access.signOut(session, clientAddress), () => signedOut))
  )

  yield* router.add(
    "POST",
    "/dashboard/sign-out-everywhere",
    signedInChange((session, clientAddress) =>
      Effect.flatMap(access.signOutEverywhere(session, clientAddress), () => signedOut)
    )
  )

  yield* router.add(
    "GET",
    "/dashboard/invite/:token",
    Effect.gen(function* () {
      const token = (yield* HttpRouter.params).token ?? ""
      return yield* access.inviteFor(token).pipe(
        Effect.map((invite) => htmlPage(Pages.acceptInvite(invite))),
        Effect.catchTag("InviteUnusable", () => Effect.succeed(htmlPage(Pages.inviteUnusable(), 410)))
      )
    })
  )

  yield* router.add(
    "POST",
    "/dashboard/invite/:token",
    Effect.gen(function* () {
      const { request, origin, token: previous } = yield* context
      if (!Security.isSameOrigin(request, origin.secure)) return crossSite()
      const token = (yield* HttpRouter.params).token ?? ""
      const field = yield* formOf(request)
      const invite = yield* Effect.option(access.inviteFor(token))
      if (Option.isNone(invite)) return htmlPage(Pages.inviteUnusable(), 410)
      if (field("password") !== field("repeat")) {
        return htmlPage(Pages.acceptInvite(invite.value, "The two passwords differ."), 400)
      }
      return yield* access.acceptInvite(token, Redacted.make(field("password")), origin.clientAddress, previous).pipe(
        Effect.flatMap((signed) =>
          Security.withSession(seeOther(overviewPath), Redacted.value(signed.sessionToken), origin.secure)
        ),
        Effect.catchTags({
          InviteUnusable: () => Effect.succeed(htmlPage(Pages.inviteUnusable(), 410)),
          PasswordRejected: (rejected) =>
            Effect.succeed(htmlPage(Pages.acceptInvite(invite.value, `Not set: ${rejected.message}.`), 400)),
          EmailTaken: () =>
            Effect.succeed(
              htmlPage(Pages.refusal("Address in use", "This address belongs to a user of another organization."), 409)
            ),
          HashingBusy: (refused) => Effect.succeed(busy(Pages.acceptInvite(invite.value, busyMessage), refused))
        })
      )
    })
  )
})
