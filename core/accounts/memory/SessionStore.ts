/**
 * `SessionStore` in memory, over the memory world's `AccountsState`, for embedders and fast tests; it passes the same contract as the
 * PostgreSQL store (`test/contracts/SessionStore.contract.ts`). Depends on effect and the core.
 */
import { DateTime, Effect, Layer, Option } from "effect"
import { Hex } from "effect/encoding"
import type { OrgId, UserId } from "../../shared/domain/Ids.ts"
import { type EndReason, SessionStore } from "../ports/SessionStore.ts"
import { AccountsState } from "./AccountsState.ts"

const make = Effect.gen(function* () {
  const { sessions, endedSessions } = yield* AccountsState
  const owned = (org: OrgId, digest: string) => {
    const session = sessions.get(digest)
    return session !== undefined && session.orgId === org.toLowerCase() ? session : undefined
  }

  return SessionStore.of({
    create: (tokenHash, session) =>
      Effect.suspend(() => {
        const digest = Hex.encode(tokenHash)
        if (sessions.has(digest)) return Effect.die(new Error("a session with this digest is already stored"))
        sessions.set(digest, session)
        return Effect.void
      }),
    find: (tokenHash) => Effect.sync(() => Option.fromNullishOr(sessions.get(Hex.encode(tokenHash)))),
    touch: (org, tokenHash, at) =>
      Effect.sync(() => {
        const digest = Hex.encode(tokenHash)
        const session = owned(org, digest)
        if (session !== undefined) sessions.set(digest, { ...session, lastSeenAt: at })
      }),
    remove: (org, tokenHash) =>
      Effect.sync(() => {
        const digest = Hex.encode(tokenHash)
        if (owned(org, digest) !== undefined) sessions.delete(digest)
      }),
    removeAllOfUser: (org: OrgId, user: UserId, reason: EndReason, at: DateTime.Utc) =>
      Effect.sync(() => {
        for (const [digest, session] of sessions) {
          if (session.orgId === org.toLowerCase() && session.userId === user.toLowerCase()) {
            sessions.delete(digest)
            endedSessions.set(digest, { reason, at })
          }
        }
      }),
    endedReason: (tokenHash) =>
      Effect.sync(() => Option.map(Option.fromNullishOr(endedSessions.get(Hex.encode(tokenHash))), (e) => e.reason)),
    removeExpired: (createdBefore, seenBefore) =>
      Effect.sync(() => {
        let removed = 0
        for (const [digest, session] of sessions) {
          if (
            DateTime.isLessThan(session.createdAt, createdBefore) ||
            DateTime.isLessThan(session.lastSeenAt, seenBefore)
          ) {
            sessions.delete(digest)
            removed++
          }
        }
        for (const [digest, ended] of endedSessions) {
          if (DateTime.isLessThan(ended.at, createdBefore)) endedSessions.delete(digest)
        }
        return removed
      })
  })
})

export const layerMemory: Layer.Layer<SessionStore, never, AccountsState> = Layer.effect(SessionStore, make)
