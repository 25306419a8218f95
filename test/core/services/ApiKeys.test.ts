/**
 * The key policy and the cache of verified keys, on the in-memory store, with virtual time: the
 * stored digest (golden vectors), what never reaches the store, and when a cached key must be
 * looked up again. The store's lookups are counted and its revocation feed is in the test's hands.
 */
import { createHash } from "node:crypto"
import { assert, describe, it } from "@effect/vitest"
import { Context, Deferred, type Duration, Effect, Exit, Fiber, Layer, Option, Redacted, Stream } from "effect"
import { Digest, SecureRandom } from "effect/crypto"
import { Hex } from "effect/encoding"
import { TestClock } from "effect/testing"
import fc from "fast-check"
import { isWellFormedApiKey, makeApiKey, secretBytes } from "../../../core/access/domain/ApiKey.ts"
import { layerMemory } from "../../../core/access/memory/ApiKeyStore.ts"
import * as MemoryKeyUsageStore from "../../../core/access/memory/KeyUsageStore.ts"
import { ApiKeyStore, RevocationFeedLost } from "../../../core/access/ports/ApiKeyStore.ts"
import { KeyUsageStore } from "../../../core/access/ports/KeyUsageStore.ts"
import { ApiKeys, hashKey } from "../../../core/access/services/ApiKeys.ts"
import * as VerifiedKeyCache from "../../../core/access/services/VerifiedKeyCache.ts"
import { states as memoryStates } from "../../../core/memory/MemoryStorage.ts"
import * as MemoryOrganizations from "../../../core/shared/memory/Organizations.ts"
import { Organizations } from "../../../core/shared/ports/Organizations.ts"

// Persisted by every deployment: these digests must never change. The first key is the test
// fixtures' `orgA` key (24 bytes of 1), the second the key the e2e cache test inserts.
const golden = [
  [
    "pr_live_00fdQWfEmi1CsDnkmh2kgfFBdcOWBGwvR0if7kt",
    "4775c87c697f7c4e65f2d3133ab5eaba6c7d00acaa09d30583ab89254bb32381"
  ],
  [
    "pr_live_0SChy7w0zooijLhgz9rctwHsq0bndTuuI31W1nS",
    "96fc1044a073ed5567c718503451b66a748b4f9b6bf34c1995db5aa88cb7501a"
  ],
  ["pr_live_ünïcödé 🔑", "87f1c7e3d5004a62bdfcb8c33a97d1f7e2758677fe100ed0c8ca0889665e86fe"]
] as const
const [firstKey, firstDigest] = golden[0]

const digestHex = (key: string) => Effect.map(hashKey(Redacted.make(key)), Hex.encode)

interface Hold {
  readonly read: Deferred.Deferred<void>
  readonly release: Deferred.Deferred<void>
}

/** The memory store behind the cache, its lookups counted and its revocation feed controllable. */
const setup = (ttl: Duration.Input = "10 seconds") =>
  Effect.gen(function* () {
    const context = yield* Layer.build(
      Layer.mergeAll(layerMemory, MemoryOrganizations.layerMemory, MemoryKeyUsageStore.layerMemory).pipe(
        Layer.provide(memoryStates)
      )
    )
    const raw = Context.get(context, ApiKeyStore)
    const org = yield* Context.get(context, Organizations).create("Keys Org")
    const feed = { refuse: false, mute: false, joins: 0, lookups: 0, hold: Option.none<Hold>() }
    let ended = yield* Deferred.make<void>()
    const observed = ApiKeyStore.of({
      ...raw,
      findByHash: (hash) =>
        Effect.suspend(() => {
          feed.lookups += 1
          // Held after reading: the answer may be stale by the time it arrives.
          return Option.match(feed.hold, {
            onNone: () => raw.findByHash(hash),
            onSome: (hold) =>
              Effect.tap(raw.findByHash(hash), () =>
                Effect.andThen(Deferred.succeed(hold.read, undefined), Deferred.await(hold.release))
              )
          })
        }),
      revocations: Effect.gen(function* () {
        if (feed.refuse) return yield* new RevocationFeedLost({ reason: "refused by the test" })
        feed.joins += 1
        const announced = yield* raw.revocations
        ended = yield* Deferred.make<void>()
        const cut = Effect.andThen(Deferred.await(ended), new RevocationFeedLost({ reason: "cut by the test" }))
        return announced.pipe(
          Stream.filter(() => !feed.mute),
          Stream.interruptWhen(cut)
        )
      })
    })
    const cached = yield* VerifiedKeyCache.make(observed, ttl)
    // Randomness from a counter: the first key made is the golden one, every later one differs.
    let seed = 0
    const random = SecureRandom.make((size) => {
      seed += 1
      return new Uint8Array(size).fill(seed)
    })
    const services = yield* Layer.build(
      ApiKeys.layerWith({ brand: "pr" }).pipe(
        Layer.provide([
          Layer.succeed(ApiKeyStore, cached.store),
          Layer.succeed(KeyUsageStore, Context.get(context, KeyUsageStore)),
          Layer.succeed(SecureRandom.SecureRandom, random),
          Digest.layerWebCrypto
        ])
      )
    )
    const until = (what: string, condition: Effect.Effect<boolean>) =>
      Effect.gen(function* () {
        for (let turn = 0; turn < 200; turn++) {
          if (yield* condition) return
          yield* Effect.yieldNow
        }
        assert.fail(`still not ${what}`)
      })
    return {
      keys: Context.get(services, ApiKeys),
      raw,
      org,
      feed,
      listening: cached.listening,
      verified: cached.verified,
      untilListening: until("listening", cached.listening),
      untilDeaf: until(
        "deaf",
        Effect.map(cached.listening, (on) => !on)
      ),
      cutFeed: Effect.suspend(() => Deferred.succeed(ended, undefined))
    }
  })

const rejection = <E>(exit: Exit.Exit<unknown, E>): E | undefined => Option.getOrUndefined(Exit.findErrorOption(exit))

describe("ApiKeys", () => {
  it.effect("the stored digest is the SHA-256 of the key's UTF-8 (golden vectors)", () =>
    Effect.gen(function* () {
      for (const [key, digest] of golden) assert.strictEqual(yield* digestHex(key), digest)
    }).pipe(Effect.provide(Digest.layerWebCrypto))
  )

  it.effect("the digest agrees with the SHA-256 the keys were stored with before, for any text", () =>
    Effect.gen(function* () {
      const run = Effect.runPromiseWith(yield* Effect.context<Digest.Digest>())
      yield* Effect.promise(() =>
        fc.assert(
          fc.asyncProperty(fc.string({ unit: "binary", maxLength: 80 }), async (text) => {
            assert.strictEqual(await run(digestHex(text)), createHash("sha256").update(text, "utf8").digest("hex"))
          })
        )
      )
    }).pipe(Effect.provide(Digest.layerWebCrypto))
  )

  it.effect("a new key comes from 24 random bytes; the store holds its digest and display start only", () =>
    Effect.gen(function* () {
      const { keys, raw, org } = yield* setup()
      const { key, record } = yield* keys.create(org.id, "ci")
      assert.strictEqual(Redacted.value(key), firstKey)
      assert.deepInclude(record, { orgId: org.id, name: "ci", displayStart: "pr_live_00fd", revokedAt: null })
      const stored = yield* raw.findByHash(new Uint8Array(Buffer.from(firstDigest, "hex")))
      assert.deepStrictEqual(
        stored,
        Option.some({ id: record.id, orgId: org.id, revokedAt: null, orgRateLimit: null, permissions: [] })
      )
      assert.deepStrictEqual(yield* keys.verify(key), { keyId: record.id, orgId: org.id })
    })
  )

  it.effect("a malformed key is refused as invalid without reaching the store", () =>
    Effect.gen(function* () {
      const { keys, feed } = yield* setup()
      const mangled = fc.oneof(
        fc.string({ maxLength: 60 }),
        fc.nat({ max: firstKey.length - 1 }).map((cut) => firstKey.slice(0, cut)),
        fc
          .tuple(fc.nat({ max: firstKey.length - 1 }), fc.constantFrom(..."0aZ_-x9 "))
          .map(([at, char]) => `${firstKey.slice(0, at)}${char}${firstKey.slice(at + 1)}`),
        fc.constantFrom(firstKey.replace("pr_", "xy_"), `${firstKey}0`, firstKey.toUpperCase())
      )
      const run = Effect.runPromise
      yield* Effect.promise(() =>
        fc.assert(
          fc.asyncProperty(
            mangled.filter((key) => !isWellFormedApiKey("pr", key)),
            async (key) => {
              const refused = rejection(await run(Effect.exit(keys.verify(Redacted.make(key)))))
              assert.deepStrictEqual({ ...refused }, { _tag: "ApiKeyRejected", reason: "invalid" })
            }
          )
        )
      )
      assert.strictEqual(feed.lookups, 0)
    })
  )

  it.effect("a well-formed key never issued is invalid, and names no owner", () =>
    Effect.gen(function* () {
      const { keys, feed } = yield* setup()
      const stranger = Redacted.make(makeApiKey("pr", new Uint8Array(secretBytes).fill(200)))
      for (let i = 1; i <= 2; i++) {
        const refused = rejection(yield* Effect.exit(keys.verify(stranger)))
        assert.deepStrictEqual({ ...refused }, { _tag: "ApiKeyRejected", reason: "invalid" })
        // Only live keys are kept: an unknown one is looked up each time.
        assert.strictEqual(feed.lookups, i)
      }
    })
  )

  it.effect("a revoked key is refused on the very next verify, naming its key and organization", () =>
    Effect.gen(function* () {
      const { keys, org, feed, untilListening } = yield* setup()
      yield* untilListening
      // No announcement reaches this process: the revocation must take effect here on its own.
      feed.mute = true
      const { key, record } = yield* keys.create(org.id, "")
      yield* keys.verify(key)
      yield* keys.verify(key)
      yield* keys.revoke(record.id)
      const refused = rejection(yield* Effect.exit(keys.verify(key)))
      assert.deepInclude(refused, { _tag: "ApiKeyRejected", reason: "revoked", keyId: record.id, orgId: org.id })
    })
  )
})

describe("ApiKeys over the cache of verified keys", () => {
  it.effect("a verified key is kept until its time is up, then looked up again", () =>
    Effect.gen(function* () {
      const { keys, org, feed, untilListening } = yield* setup("10 seconds")
      yield* untilListening
      const { key } = yield* keys.create(org.id, "")
      yield* keys.verify(key)
      yield* TestClock.adjust("9999 millis")
      yield* keys.verify(key)
      assert.strictEqual(feed.lookups, 1)
      yield* TestClock.adjust("1 millis")
      yield* keys.verify(key)
      assert.strictEqual(feed.lookups, 2)
    })
  )

  it.effect("a revocation announced by the store, made elsewhere, drops the key from the cache", () =>
    Effect.gen(function* () {
      const { keys, raw, org, feed, untilListening } = yield* setup()
      yield* untilListening
      const [a, b] = [yield* keys.create(org.id, "a"), yield* keys.create(org.id, "b")]
      yield* Effect.forEach([a.key, b.key, a.key, b.key], keys.verify)
      assert.strictEqual(feed.lookups, 2)
      // Without its announcement, a revocation elsewhere goes unseen while the key is kept:
      feed.mute = true
      yield* raw.revoke(a.record.id)
      assert.deepStrictEqual(yield* keys.verify(a.key), { keyId: a.record.id, orgId: org.id })
      // with it, the key is dropped as soon as the announcement arrives.
      feed.mute = false
      yield* raw.revoke(b.record.id)
      for (let turn = 0; Exit.isSuccess(yield* Effect.exit(keys.verify(b.key))); turn++) {
        assert.isBelow(turn, 100, "the announced revocation never reached the cache")
        yield* Effect.yieldNow
      }
      assert.strictEqual(feed.lookups, 3)
    })
  )

  it.effect("a key found revoked elsewhere before its announcement is dropped through VerifiedKeys", () =>
    Effect.gen(function* () {
      const { keys, raw, org, feed, verified, untilListening } = yield* setup()
      yield* untilListening
      const { key, record } = yield* keys.create(org.id, "a")
      yield* Effect.forEach([key, key], keys.verify)
      assert.strictEqual(feed.lookups, 1)
      // Revoked with its announcement lost: the cache would answer from memory until its time is up,
      feed.mute = true
      yield* raw.revoke(record.id)
      assert.deepStrictEqual(yield* keys.verify(key), { keyId: record.id, orgId: org.id })
      // until whoever found the key revoked drops it: the next verify reads the store and refuses.
      yield* verified.forget(record.id)
      const refused = rejection(yield* Effect.exit(keys.verify(key)))
      assert.deepStrictEqual(
        { ...refused },
        { _tag: "ApiKeyRejected", reason: "revoked", keyId: record.id, orgId: org.id }
      )
      assert.strictEqual(feed.lookups, 2)
    })
  )

  it.effect("a lookup overlapping an announcement is answered but not kept", () =>
    Effect.gen(function* () {
      const { keys, raw, org, feed, untilListening } = yield* setup()
      yield* untilListening
      const { key, record } = yield* keys.create(org.id, "")
      const hold = { read: yield* Deferred.make<void>(), release: yield* Deferred.make<void>() }
      feed.hold = Option.some(hold)
      const inFlight = yield* Effect.forkChild(keys.verify(key))
      yield* Deferred.await(hold.read)
      feed.hold = Option.none()
      // Revoked and announced after the lookup read the key live, before its answer arrives.
      yield* raw.revoke(record.id)
      for (let turn = 0; turn < 20; turn++) yield* Effect.yieldNow
      yield* Deferred.succeed(hold.release, undefined)
      assert.deepStrictEqual(yield* Fiber.join(inFlight), { keyId: record.id, orgId: org.id })
      assert.deepInclude(rejection(yield* Effect.exit(keys.verify(key))), { reason: "revoked" })
    })
  )

  it.effect("a lookup begun before the feed was joined is answered but not kept", () =>
    Effect.gen(function* () {
      const { keys, raw, org, feed, untilListening } = yield* setup()
      feed.refuse = true
      const { key, record } = yield* keys.create(org.id, "")
      const hold = { read: yield* Deferred.make<void>(), release: yield* Deferred.make<void>() }
      feed.hold = Option.some(hold)
      const inFlight = yield* Effect.forkChild(keys.verify(key))
      yield* Deferred.await(hold.read)
      feed.hold = Option.none()
      // Revoked while nobody listened: no announcement of it will ever arrive.
      yield* raw.revoke(record.id)
      feed.refuse = false
      yield* TestClock.adjust("1 second")
      yield* untilListening
      yield* Deferred.succeed(hold.release, undefined)
      assert.deepStrictEqual(yield* Fiber.join(inFlight), { keyId: record.id, orgId: org.id })
      assert.deepInclude(rejection(yield* Effect.exit(keys.verify(key))), { reason: "revoked" })
    })
  )

  it.effect("while revocations are not received, every verify reaches the store", () =>
    Effect.gen(function* () {
      const { keys, raw, org, feed, listening } = yield* setup()
      feed.refuse = true
      const { key, record } = yield* keys.create(org.id, "")
      yield* TestClock.adjust("1 minute")
      assert.isFalse(yield* listening)
      yield* Effect.forEach([1, 2, 3], () => keys.verify(key))
      assert.strictEqual(feed.lookups, 3)
      yield* raw.revoke(record.id)
      assert.deepInclude(rejection(yield* Effect.exit(keys.verify(key))), { reason: "revoked" })
    })
  )

  it.effect("a lost feed empties the cache, which is bypassed until the feed is joined again", () =>
    Effect.gen(function* () {
      const { keys, org, feed, untilListening, untilDeaf, cutFeed } = yield* setup()
      yield* untilListening
      const { key } = yield* keys.create(org.id, "")
      yield* Effect.forEach([1, 2], () => keys.verify(key))
      assert.strictEqual(feed.lookups, 1)
      feed.refuse = true
      yield* cutFeed
      yield* untilDeaf
      yield* Effect.forEach([1, 2], () => keys.verify(key))
      assert.strictEqual(feed.lookups, 3)
      // Rejoined well before the old entry would have expired: it must be gone all the same.
      feed.refuse = false
      yield* TestClock.adjust("1 second")
      yield* untilListening
      assert.strictEqual(feed.joins, 2)
      yield* Effect.forEach([1, 2], () => keys.verify(key))
      assert.strictEqual(feed.lookups, 4)
    })
  )

  it.effect("a cache time of zero keeps nothing and joins no feed", () =>
    Effect.gen(function* () {
      const { keys, org, feed } = yield* setup("0 seconds")
      const { key } = yield* keys.create(org.id, "")
      yield* Effect.forEach([1, 2, 3], () => keys.verify(key))
      assert.strictEqual(feed.lookups, 3)
      assert.strictEqual(feed.joins, 0)
    })
  )
})
