/**
 * Verified keys remembered for a while, as a layer around `ApiKeyStore`, so that most requests
 * need no lookup: only a live key is kept, for `KEY_CACHE_SECONDS` (default 10; 0 turns it off).
 * The cache holds only while the store's revocation feed is joined: an announced revocation drops
 * the key at once, and while the feed is not joined (not yet, or lost) the cache is empty and
 * bypassed, so that a missed announcement never keeps a revoked key alive. Whoever finds a cached key
 * revoked before its announcement arrives (the shared rate limits' statement) drops it through
 * `VerifiedKeys`. Depends on the port.
 */
import { Clock, Config, Context, Duration, Effect, Layer, Option, Schedule, Schema, Stream } from "effect"
import { Hex } from "effect/encoding"
import type { OrgId } from "../../shared/domain/Ids.ts"
import { ApiKeyStore, RevocationFeedLost, type StoredKey } from "../ports/ApiKeyStore.ts"

export const ttlSeconds = Config.schema(
  Schema.FiniteFromString.check(Schema.isGreaterThanOrEqualTo(0)),
  "KEY_CACHE_SECONDS"
).pipe(Config.withDefault(10))

/** The cache as its users outside the store see it. */
export class VerifiedKeys extends Context.Service<
  VerifiedKeys,
  {
    /** Drops the key, found revoked elsewhere, so that its next lookup reads the store. */
    readonly forget: (keyId: string) => Effect.Effect<void>
  }
>()("core/VerifiedKeys") {}

export interface CachedStore {
  /** The store, with `findByHash` answered from the cache where it may be. */
  readonly store: ApiKeyStore["Service"]
  /** Whether revocations are being received, and the cache therefore in use. */
  readonly listening: Effect.Effect<boolean>
  readonly verified: VerifiedKeys["Service"]
}

// Rejoining a lost feed: at once at first, then at most every 10 seconds.
const rejoin = Schedule.min([Schedule.exponential("100 millis"), Schedule.spaced("10 seconds")])

/** A cache around `store`, joined to its revocation feed for as long as the enclosing scope lasts. */
export const make = Effect.fnUntraced(function* (store: ApiKeyStore["Service"], ttl: Duration.Input) {
  const ttlMillis = Duration.toMillis(ttl)
  if (ttlMillis <= 0) {
    return {
      store,
      listening: Effect.succeed(false),
      verified: VerifiedKeys.of({ forget: () => Effect.void })
    } satisfies CachedStore
  }

  const entries = new Map<string, { readonly key: StoredKey; readonly expiresAt: number }>()
  let listening = false
  // Counts what invalidates a lookup under way: one that overlapped an announcement, a lost feed
  // or a joining (announcements before it were missed) may have read the key before its
  // revocation, so its answer is not kept.
  let generation = 0

  const forget = (keyId: string) => {
    generation += 1
    for (const [digest, entry] of entries) if (entry.key.id === keyId) entries.delete(digest)
  }
  const stopListening = Effect.sync(() => {
    listening = false
    generation += 1
    entries.clear()
  })

  const follow = Effect.gen(function* () {
    const announced = yield* store.revocations
    generation += 1
    listening = true
    yield* Stream.runForEach(announced, (keyId) => Effect.sync(() => forget(keyId)))
    return yield* new RevocationFeedLost({ reason: "the revocation feed ended" })
  }).pipe(Effect.ensuring(stopListening), Effect.scoped)

  yield* Effect.forkScoped(
    follow.pipe(
      Effect.tapCause((cause) =>
        Effect.logWarning("key cache: not receiving revocations; bypassing the cache until they resume", cause)
      ),
      Effect.retry(rejoin)
    )
  )

  const findByHash = Effect.fnUntraced(function* (hash: Uint8Array) {
    const now = yield* Clock.currentTimeMillis
    const digest = Hex.encode(hash)
    const cached = listening ? entries.get(digest) : undefined
    if (cached !== undefined && cached.expiresAt > now) return Option.some(cached.key)
    const before = generation
    const found = yield* store.findByHash(hash)
    // Kept only if the feed was joined throughout the lookup and nothing was announced meanwhile.
    if (listening && before === generation && Option.isSome(found) && found.value.revokedAt === null) {
      entries.set(digest, { key: found.value, expiresAt: now + ttlMillis })
    }
    return found
  })

  // A revocation made through this process needs no announcement to take effect here.
  const revoke = (id: string) => Effect.tap(store.revoke(id), (record) => Effect.sync(() => forget(record.id)))
  const revokeActive = (org: OrgId, id: string) =>
    Effect.tap(store.revokeActive(org, id), (record) => Effect.sync(() => forget(record.id)))

  return {
    store: ApiKeyStore.of({ ...store, findByHash, revoke, revokeActive }),
    listening: Effect.sync(() => listening),
    verified: VerifiedKeys.of({ forget: (keyId) => Effect.sync(() => forget(keyId)) })
  } satisfies CachedStore
})

/** The cache around the `ApiKeyStore` provided, keeping keys for `ttl`: the cached store and `VerifiedKeys`. */
export const layerWith = (options: { readonly ttl: Duration.Input }) =>
  Layer.effectContext(
    Effect.gen(function* () {
      const cached = yield* make(yield* ApiKeyStore, options.ttl)
      return Context.make(ApiKeyStore, cached.store).pipe(Context.add(VerifiedKeys, cached.verified))
    })
  )

/** The cache around the `ApiKeyStore` provided, keeping keys for `KEY_CACHE_SECONDS`. */
export const layer = Layer.unwrap(Effect.map(ttlSeconds, (seconds) => layerWith({ ttl: Duration.seconds(seconds) })))
