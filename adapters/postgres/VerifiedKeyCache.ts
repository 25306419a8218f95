/**
 * Verified keys kept in memory for a short while (`KEY_CACHE_SECONDS`, default 10; 0 turns the
 * cache off), so that most requests need no key lookup. A revocation anywhere is announced by
 * PostgreSQL (`api_key_revoked`) and drops the key here at once. The cache is used only while
 * this process is listening: if the listening connection is lost, the cache is emptied and
 * bypassed until it listens again, so a missed announcement can never keep a revoked key alive.
 */
import { PgClient } from "@effect/sql-pg"
import { Config, Effect, Queue, Schedule, Schema } from "effect"
import type { KeyOwner } from "../../core/ports/ApiKeys.ts"

export interface VerifiedKeyCache {
  readonly get: (digest: string) => KeyOwner | undefined
  readonly set: (digest: string, owner: KeyOwner) => void
}

export const revocationChannel = "api_key_revoked"

export const ttlSeconds = Config.schema(
  Schema.FiniteFromString.check(Schema.isGreaterThanOrEqualTo(0)),
  "KEY_CACHE_SECONDS"
).pipe(Config.withDefault(10))

/** A cache living as long as the enclosing scope, with its listener running in the background. */
export const make = Effect.gen(function* () {
  const ttlMillis = (yield* ttlSeconds) * 1000
  const entries = new Map<string, { readonly owner: KeyOwner; readonly expiresAt: number }>()
  let listening = false

  const forget = (keyId: string) => {
    for (const [digest, entry] of entries) if (entry.owner.keyId === keyId) entries.delete(digest)
  }

  if (ttlMillis > 0) {
    const pg = yield* PgClient.PgClient
    const listen = Effect.scoped(
      Effect.gen(function* () {
        const notifications = yield* pg.listen(revocationChannel)
        listening = true
        yield* Effect.forever(Effect.map(Queue.take(notifications), (notification) => forget(notification.payload)))
      })
    ).pipe(
      Effect.ensuring(
        Effect.sync(() => {
          listening = false
          entries.clear()
        })
      )
    )
    yield* Effect.forkScoped(
      listen.pipe(
        Effect.tapCause((cause) =>
          Effect.logWarning("key cache: lost the revocation listener; bypassing the cache", cause)
        ),
        Effect.retry(Schedule.min([Schedule.exponential("100 millis"), Schedule.spaced("10 seconds")]))
      )
    )
  }

  const cache: VerifiedKeyCache = {
    get: (digest) => {
      if (!listening) return undefined
      const entry = entries.get(digest)
      if (entry === undefined || entry.expiresAt <= Date.now()) return undefined
      return entry.owner
    },
    set: (digest, owner) => {
      if (listening) entries.set(digest, { owner, expiresAt: Date.now() + ttlMillis })
    }
  }
  return cache
})
