/**
 * The contract of the `ApiKeyStore` port, one suite run against every implementation (the
 * in-memory twin, PostgreSQL): a store's test file is one line, `describeApiKeyStore(name, layer)`,
 * as with the connector conformance kit. The layer provides the store and the `Organizations`
 * its keys belong to. Rules that hold for any input are properties.
 */
import { randomBytes } from "node:crypto"
import { assert, layer } from "@effect/vitest"
import { DateTime, Effect, Exit, type Layer, Option, Stream } from "effect"
import fc from "fast-check"
import { permissions } from "../../core/access/domain/ApiKey.ts"
import { ApiKeyStore, LiveKeyLimitReached } from "../../core/access/ports/ApiKeyStore.ts"
import { Organizations } from "../../core/shared/ports/Organizations.ts"
import { arbitraryRateLimit } from "../support/arbitraries.ts"

type Services = ApiKeyStore | Organizations

const newOrg = Effect.gen(function* () {
  return yield* (yield* Organizations).create("Contract Org")
})

// Digests of real keys are as good as random: each inserted key gets fresh random bytes.
const insertKey = (orgId: string, name = "a key") =>
  Effect.gen(function* () {
    const hash = new Uint8Array(randomBytes(32))
    const record = yield* (yield* ApiKeyStore).insert({ orgId, name, hash, displayStart: "pr_live_abcd" })
    return { hash, record }
  })

const millis = (time: DateTime.Utc | null) => (time === null ? null : DateTime.toEpochMillis(time))

/** Runs `body` for generated values against the store under test; fails with the counterexample. */
const forAll = <T>(
  arbitrary: fc.Arbitrary<T>,
  body: (value: T) => Effect.Effect<void, unknown, Services>,
  numRuns = 20
) =>
  Effect.gen(function* () {
    const run = Effect.runPromiseWith(yield* Effect.context<Services>())
    yield* Effect.promise(() =>
      fc.assert(
        fc.asyncProperty(arbitrary, (value) => run(body(value))),
        { numRuns }
      )
    )
  })

// PostgreSQL text holds no NUL character; names come from operators, who cannot type one.
const keyName = fc.string({ unit: "grapheme", maxLength: 40 }).filter((name) => !name.includes("\u0000"))
const unknownId = fc.oneof(fc.uuid(), fc.string({ maxLength: 40 }))

export const describeApiKeyStore = <E>(name: string, storeLayer: Layer.Layer<Services, E>) =>
  layer(storeLayer, { excludeTestServices: true, timeout: 120_000 })(`ApiKeyStore contract (${name})`, (it) => {
    it.effect("a stored key is found by its digest, with its id, its organization and no revocation", () =>
      forAll(keyName, (name) =>
        Effect.gen(function* () {
          const org = yield* newOrg
          const { hash, record } = yield* insertKey(org.id, name)
          assert.deepStrictEqual(
            [record.orgId, record.name, record.displayStart, record.revokedAt, record.lastUsedAt],
            [org.id, name, "pr_live_abcd", null, null]
          )
          const found = yield* (yield* ApiKeyStore).findByHash(hash)
          assert.deepStrictEqual(
            found,
            Option.some({ id: record.id, orgId: org.id, revokedAt: null, orgRateLimit: null, permissions: [] })
          )
        })
      )
    )

    it.effect("a key holds the permissions it was made with, each once, read back alike everywhere", () =>
      forAll(fc.option(fc.array(fc.constantFrom(...permissions), { maxLength: 3 }), { nil: undefined }), (given) =>
        Effect.gen(function* () {
          const store = yield* ApiKeyStore
          const org = yield* newOrg
          const hash = new Uint8Array(randomBytes(32))
          const record = yield* store.insert({
            orgId: org.id,
            name: "a key",
            hash,
            displayStart: "pr_live_abcd",
            permissions: given
          })
          const expected = [...new Set(given ?? [])].sort()
          assert.deepStrictEqual(record.permissions, expected)
          assert.deepStrictEqual(
            Option.map(yield* store.findByHash(hash), (found) => found.permissions),
            Option.some(expected)
          )
          assert.deepStrictEqual(
            Option.map(yield* store.find(record.id), (found) => found.permissions),
            Option.some(expected)
          )
          const listed = (yield* store.listByOrg(org.id)).map((found) => found.permissions)
          assert.deepStrictEqual(listed, [expected])
        })
      )
    )

    it.effect("a key is found with its organization's own rate limit, as last set, or none", () =>
      forAll(fc.array(fc.option(arbitraryRateLimit, { nil: null }), { minLength: 1, maxLength: 3 }), (limits) =>
        Effect.gen(function* () {
          const organizations = yield* Organizations
          const org = yield* newOrg
          const { hash } = yield* insertKey(org.id)
          for (const limit of limits) {
            assert.deepStrictEqual(
              Option.map(yield* organizations.setRateLimit(org.id, limit), (o) => o.rateLimit),
              Option.some(limit)
            )
            assert.deepStrictEqual(
              Option.map(yield* (yield* ApiKeyStore).findByHash(hash), (found) => found.orgRateLimit),
              Option.some(limit)
            )
          }
        })
      )
    )

    it.effect("a digest that was never stored finds nothing", () =>
      forAll(fc.uint8Array({ minLength: 32, maxLength: 32 }), (hash) =>
        Effect.gen(function* () {
          assert.isTrue(Option.isNone(yield* (yield* ApiKeyStore).findByHash(hash)))
        })
      )
    )

    it.effect("an organization lists exactly its keys, revoked ones too, oldest first", () =>
      forAll(fc.array(fc.record({ second: fc.boolean(), revoked: fc.boolean() }), { maxLength: 8 }), (plan) =>
        Effect.gen(function* () {
          const store = yield* ApiKeyStore
          const orgs = [yield* newOrg, yield* newOrg] as const
          const expected: [Array<string>, Array<string>] = [[], []]
          const revoked = new Set<string>()
          for (const step of plan) {
            const { record } = yield* insertKey(orgs[step.second ? 1 : 0].id)
            expected[step.second ? 1 : 0].push(record.id)
            if (step.revoked) revoked.add((yield* store.revoke(record.id)).id)
          }
          for (const [index, org] of orgs.entries()) {
            const listed = yield* store.listByOrg(org.id)
            assert.sameMembers(
              listed.map((record) => record.id),
              expected[index]!
            )
            for (const record of listed) assert.strictEqual(record.revokedAt !== null, revoked.has(record.id))
            // Ties within a millisecond are ordered by id, or by the database's finer clock.
            const times = listed.map((record) => millis(record.createdAt)!)
            assert.deepStrictEqual(
              times,
              [...times].sort((a, b) => a - b)
            )
          }
        })
      )
    )

    it.effect("revoking again keeps the first revocation's time", () =>
      forAll(fc.integer({ min: 1, max: 4 }), (times) =>
        Effect.gen(function* () {
          const store = yield* ApiKeyStore
          const { hash, record } = yield* insertKey((yield* newOrg).id)
          const first = yield* store.revoke(record.id)
          assert.isNotNull(first.revokedAt)
          for (let i = 1; i < times; i++) {
            assert.strictEqual(millis((yield* store.revoke(record.id)).revokedAt), millis(first.revokedAt))
          }
          const found = Option.getOrThrow(yield* store.findByHash(hash))
          assert.strictEqual(millis(found.revokedAt), millis(first.revokedAt))
          assert.strictEqual(found.id, record.id)
        })
      )
    )

    it.effect("an organization revokes its own active key once; another's key, or a revoked one, is not found", () =>
      forAll(fc.boolean(), (upperCase) =>
        Effect.gen(function* () {
          const store = yield* ApiKeyStore
          const [mine, theirs] = [yield* newOrg, yield* newOrg]
          const { hash, record } = yield* insertKey(mine.id)
          const id = upperCase ? record.id.toUpperCase() : record.id
          assert.deepInclude(yield* Effect.flip(store.revokeActive(theirs.id, id)), { _tag: "ApiKeyNotFound" })
          assert.strictEqual(Option.getOrThrow(yield* store.findByHash(hash)).revokedAt, null)
          const revoked = yield* store.revokeActive(mine.id, id)
          assert.deepStrictEqual([revoked.id, revoked.orgId], [record.id, mine.id])
          assert.isNotNull(revoked.revokedAt)
          assert.deepInclude(yield* Effect.flip(store.revokeActive(mine.id, id)), { _tag: "ApiKeyNotFound" })
          assert.strictEqual(
            millis(Option.getOrThrow(yield* store.findByHash(hash)).revokedAt),
            millis(revoked.revokedAt)
          )
          const unknown = yield* Effect.flip(store.revokeActive(mine.id, "not-a-uuid"))
          assert.deepInclude(unknown, { _tag: "ApiKeyNotFound" })
        })
      )
    )

    it.effect("an id that names no key is ApiKeyNotFound for revoke and found by nothing, whatever its text", () =>
      forAll(unknownId, (id) =>
        Effect.gen(function* () {
          const store = yield* ApiKeyStore
          assert.deepInclude(yield* Effect.flip(store.revoke(id)), { _tag: "ApiKeyNotFound", id })
          assert.isTrue(Option.isNone(yield* store.find(id)))
        })
      )
    )

    it.effect("an id that names no organization is OrganizationNotFound for insert and list", () =>
      forAll(unknownId, (id) =>
        Effect.gen(function* () {
          const store = yield* ApiKeyStore
          const insert = store.insert({ orgId: id, name: "", hash: new Uint8Array(32), displayStart: "pr_live_" })
          assert.deepInclude(yield* Effect.flip(insert), { _tag: "OrganizationNotFound", id })
          assert.deepInclude(yield* Effect.flip(store.listByOrg(id)), { _tag: "OrganizationNotFound", id })
        })
      )
    )

    it.effect("a key is found by its id in any letter case, as it was stored, unused", () =>
      Effect.gen(function* () {
        const { record } = yield* insertKey((yield* newOrg).id)
        const store = yield* ApiKeyStore
        assert.deepStrictEqual(yield* store.find(record.id), Option.some(record))
        assert.deepStrictEqual(yield* store.find(record.id.toUpperCase()), Option.some(record))
        assert.isNull(record.lastUsedAt)
      })
    )

    it.effect(
      "at most `maxLive` keys are live at once: of concurrent creations past the limit exactly the slots left succeed, revoked keys not counted",
      () =>
        forAll(
          fc.record({
            limit: fc.integer({ min: 1, max: 5 }),
            live: fc.integer({ min: 0, max: 5 }),
            revoked: fc.integer({ min: 0, max: 3 }),
            attempts: fc.integer({ min: 1, max: 6 })
          }),
          ({ limit, live, revoked, attempts }) =>
            Effect.gen(function* () {
              const store = yield* ApiKeyStore
              const org = yield* newOrg
              // Seeded without a limit, then some revoked: only the live ones count.
              const seeded = yield* Effect.forEach(Array.from({ length: live + revoked }), () => insertKey(org.id))
              yield* Effect.forEach(seeded.slice(live), ({ record }) => store.revoke(record.id))
              const creations = yield* Effect.forEach(
                Array.from({ length: attempts }),
                () =>
                  store
                    .insert({
                      orgId: org.id,
                      name: "concurrent",
                      hash: new Uint8Array(randomBytes(32)),
                      displayStart: "pr_live_abcd",
                      maxLive: limit
                    })
                    .pipe(
                      Effect.as("created" as const),
                      Effect.catchTag("LiveKeyLimitReached", (refusal) => Effect.succeed(refusal))
                    ),
                { concurrency: "unbounded" }
              )
              const refusals = creations.filter((outcome) => outcome !== "created")
              assert.strictEqual(creations.length - refusals.length, Math.min(attempts, Math.max(0, limit - live)))
              for (const refusal of refusals) {
                assert.deepStrictEqual(refusal, new LiveKeyLimitReached({ orgId: org.id, limit }))
              }
              const liveNow = (yield* store.listByOrg(org.id)).filter((record) => record.revokedAt === null)
              assert.strictEqual(liveNow.length, Math.max(live, Math.min(live + attempts, limit)))
            }),
          10
        )
    )

    it.effect("two keys never share a digest: storing one twice is a defect", () =>
      Effect.gen(function* () {
        const org = yield* newOrg
        const { hash } = yield* insertKey(org.id)
        const twice = yield* Effect.exit(
          (yield* ApiKeyStore).insert({ orgId: org.id, name: "", hash, displayStart: "pr_live_" })
        )
        assert.isTrue(Exit.hasDies(twice))
      })
    )

    it.effect("a revocation right after joining the feed reaches every subscriber, with the key's id", () =>
      Effect.scoped(
        Effect.gen(function* () {
          const store = yield* ApiKeyStore
          const { record } = yield* insertKey((yield* newOrg).id)
          const feeds = [yield* store.revocations, yield* store.revocations]
          yield* store.revoke(record.id)
          for (const feed of feeds) {
            const announced = yield* feed.pipe(
              Stream.filter((id) => id === record.id),
              Stream.runHead,
              Effect.timeout("10 seconds")
            )
            assert.deepStrictEqual(announced, Option.some(record.id))
          }
        })
      )
    )
  })
