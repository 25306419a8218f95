/**
 * The account page, for every signed-in user: the second factor turned on (the secret the
 * server proposed, confirmed by a code) and off (the password and a code), and its recovery codes:
 * a set made as it is turned on or on request (the password), each shown once on the page the
 * form's redirect leads to (`ShownOnce.ts`). The core decides what a code is worth, throttles wrong
 * ones and audits the changes.
 */
import { Effect, Redacted } from "effect"
import { type HttpRouter, HttpServerResponse } from "effect/http"
import {
  type CodeRefused,
  type RecoveryCodeSet,
  SecondFactors
} from "../../../../core/accounts/services/SecondFactors.ts"
import type { OrgId } from "../../../../core/shared/domain/Ids.ts"
import { type Guarded, type Guards, htmlPage, queryOf, seeOther, viewerOf } from "../frame/Handlers.ts"
import * as ShownOnce from "../frame/ShownOnce.ts"
import * as AccountPages from "./AccountPages.ts"
import { qrDataUri } from "./QrCode.ts"
import * as RecoveryCodePages from "./RecoveryCodePages.ts"

/** A new set of recovery codes, on its way to the page that shows it once (codes joined by dots). */
const newCodes: ShownOnce.ShownOnce = { name: "pr_recovery_codes", path: RecoveryCodePages.recoveryCodesPath }

export const register = Effect.fnUntraced(function* (router: HttpRouter.HttpRouter, guards: Guards) {
  const twoFactor = yield* SecondFactors
  const { context, signedIn, signedInChange } = guards

  /** The account page as it is now, with a message; the proposed secret whenever the factor is off. */
  const accountPage = (session: Guarded, messages: { problem?: string; notice?: string }, status = 200) =>
    Effect.gen(function* () {
      const on = yield* twoFactor.isOn(session.user)
      const state = on
        ? {
            on: true as const,
            lastWrongCode: yield* twoFactor.lastWrongCode(session.user),
            recoveryCodesLeft: yield* twoFactor.recoveryCodesLeft(session.user)
          }
        : yield* Effect.flatMap(twoFactor.setup(session.user), (setup) =>
            Effect.map(qrDataUri(setup.uri), (qr) => ({ on: false as const, setup, qr }))
          )
      return htmlPage(AccountPages.account(viewerOf(session), state, messages), status)
    })

  const waitPage = (session: Guarded, refused: CodeRefused, problem: string, status: number) =>
    Effect.map(
      accountPage(session, { problem }, status),
      HttpServerResponse.setHeader("retry-after", String(refused.retryAfterSeconds))
    )

  const refusedPage = (session: Guarded, refused: CodeRefused, wrong: string) =>
    refused.reason === "throttled"
      ? waitPage(session, refused, `Too many wrong codes. Try again in ${refused.retryAfterSeconds} seconds.`, 429)
      : refused.reason === "busy"
        ? waitPage(session, refused, AccountPages.busyMessage, 503)
        : refused.reason === "locked"
          ? waitPage(session, refused, AccountPages.lockedFactor(refused.retryAfterSeconds), 429)
          : accountPage(session, { problem: wrong }, 400)

  const showCodes = (orgId: OrgId) => (codes: RecoveryCodeSet) =>
    Effect.flatMap(context, ({ origin }) =>
      ShownOnce.redirect(
        newCodes,
        orgId,
        seeOther(RecoveryCodePages.recoveryCodesPath),
        Redacted.value(codes).join("."),
        origin.secure
      )
    )

  yield* router.add(
    "GET",
    AccountPages.accountPath,
    signedIn((session) =>
      Effect.gen(function* () {
        const query = queryOf((yield* context).request)
        if (query.has(RecoveryCodePages.usedQuery)) {
          const left = yield* twoFactor.recoveryCodesLeft(session.user)
          return yield* accountPage(session, { notice: RecoveryCodePages.usedNotice(left) })
        }
        return yield* accountPage(
          session,
          query.has(RecoveryCodePages.shownQuery) ? { notice: RecoveryCodePages.shownNotice } : {}
        )
      })
    )
  )

  // The new set, once: taken from the server by the cookie's handle, which this answer clears, and
  // only the user's unused codes show.
  yield* router.add(
    "GET",
    RecoveryCodePages.recoveryCodesPath,
    signedIn((session) =>
      Effect.gen(function* () {
        const { request, origin } = yield* context
        const carried = yield* ShownOnce.take(newCodes, session.user.orgId, request, origin.secure)
        const codes = (carried.value ?? "").split(".")
        const answer = (yield* twoFactor.areRecoveryCodes(session.user, codes))
          ? htmlPage(RecoveryCodePages.recoveryCodes(viewerOf(session), codes))
          : seeOther(`${AccountPages.accountPath}?${RecoveryCodePages.shownQuery}`)
        return yield* carried.clear(answer)
      })
    )
  )

  yield* router.add(
    "POST",
    RecoveryCodePages.recoveryCodesPath,
    signedInChange((session, clientAddress, field) =>
      twoFactor.newRecoveryCodes(session.user, Redacted.make(field("password")), clientAddress).pipe(
        Effect.flatMap(showCodes(session.user.orgId)),
        Effect.catchTag("CodeRefused", (refused) =>
          refusedPage(session, refused, "No new recovery codes: wrong password. The ones you have still work.")
        )
      )
    )
  )

  yield* router.add(
    "POST",
    `${AccountPages.accountPath}/totp/enable`,
    signedInChange((session, clientAddress, field) =>
      twoFactor.enable(session.user, Redacted.make(field("password")), field("code"), clientAddress).pipe(
        Effect.flatMap(showCodes(session.user.orgId)),
        Effect.catchTag("CodeRefused", (refused) =>
          refusedPage(
            session,
            refused,
            "Not turned on: wrong password, or a code that is not the current one. The secret is the same as before."
          )
        )
      )
    )
  )

  yield* router.add(
    "POST",
    `${AccountPages.accountPath}/totp/disable`,
    signedInChange((session, clientAddress, field) =>
      twoFactor.disable(session.user, Redacted.make(field("password")), field("code"), clientAddress).pipe(
        Effect.flatMap(() => accountPage(session, { notice: "The second factor is off." })),
        Effect.catchTag("CodeRefused", (refused) =>
          refusedPage(session, refused, "Not turned off: wrong password, or a code that is not the current one.")
        )
      )
    )
  )
})
