/**
 * The account page, for every signed-in user: the second factor turned on (the secret the
 * server proposed, confirmed by a code) and off (the password and a code). The core decides what a code is
 * worth, throttles wrong ones and audits both changes.
 */
import { Effect, Redacted } from "effect"
import { type HttpRouter, HttpServerResponse } from "effect/http"
import type { CurrentSession } from "../../../core/services/Accounts.ts"
import { type CodeRefused, SecondFactors } from "../../../core/services/SecondFactors.ts"
import * as AccountPages from "./AccountPages.ts"
import { type Guards, htmlPage, viewerOf } from "./Handlers.ts"
import { qrDataUri } from "./QrCode.ts"

export const register = Effect.fnUntraced(function* (router: HttpRouter.HttpRouter, guards: Guards) {
  const twoFactor = yield* SecondFactors
  const { signedIn, signedInChange } = guards

  /** The account page as it is now, with a message; the proposed secret whenever the factor is off. */
  const accountPage = (session: CurrentSession, messages: { problem?: string; notice?: string }, status = 200) =>
    Effect.gen(function* () {
      const on = yield* twoFactor.isOn(session.user)
      const state = on
        ? { on: true as const, lastWrongCode: yield* twoFactor.lastWrongCode(session.user) }
        : yield* Effect.flatMap(twoFactor.setup(session.user), (setup) =>
            Effect.map(qrDataUri(setup.uri), (qr) => ({ on: false as const, setup, qr }))
          )
      return htmlPage(AccountPages.account(viewerOf(session), state, messages), status)
    })

  const waitPage = (session: CurrentSession, refused: CodeRefused, problem: string, status: number) =>
    Effect.map(
      accountPage(session, { problem }, status),
      HttpServerResponse.setHeader("retry-after", String(refused.retryAfterSeconds))
    )

  const refusedPage = (session: CurrentSession, refused: CodeRefused, wrong: string) =>
    refused.reason === "throttled"
      ? waitPage(session, refused, `Too many wrong codes. Try again in ${refused.retryAfterSeconds} seconds.`, 429)
      : refused.reason === "busy"
        ? waitPage(session, refused, AccountPages.busyMessage, 503)
        : refused.reason === "locked"
          ? waitPage(session, refused, AccountPages.lockedFactor(refused.retryAfterSeconds), 429)
          : accountPage(session, { problem: wrong }, 400)

  yield* router.add(
    "GET",
    AccountPages.accountPath,
    signedIn((session) => accountPage(session, {}))
  )

  yield* router.add(
    "POST",
    `${AccountPages.accountPath}/totp/enable`,
    signedInChange((session, clientAddress, field) =>
      twoFactor.enable(session.user, Redacted.make(field("password")), field("code"), clientAddress).pipe(
        Effect.flatMap(() => accountPage(session, { notice: "The second factor is on." })),
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
