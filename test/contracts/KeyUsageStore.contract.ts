/**
 * The contract of the `KeyUsageStore` port, one suite run against every implementation (the
 * in-memory twin, PostgreSQL): `describeKeyUsageStore(name, layer)`, one line per store. The layer
 * also provides the key store and organizations the keys belong to, and the `AuditLog` of the same
 * storage, which counts the usage of the entries it stores. Each case uses a fresh organization's
 * keys, and its days are held to a model: requests per key and UTC day by how they were answered.
 */
import { randomBytes } from "node:crypto"
import { assert, layer } from "@effect/vitest"
import { DateTime, Effect, type Layer, Option } from "effect"
import fc from "fast-check"
import { ApiKeyStore } from "../../core/access/ports/ApiKeyStore.ts"
import { AuditLog } from "../../core/access/ports/AuditLog.ts"
import { type KeyRequest, type KeyUsageDay, KeyUsageStore } from "../../core/access/ports/KeyUsageStore.ts"
import type { ApiKeyId, OrgId } from "../../core/shared/domain/Ids.ts"
import { Organizations } from "../../core/shared/ports/Organizations.ts"

type Services = KeyUsageStore | ApiKeyStore | Organizations | AuditLog

const forAll = <T>(arbitrary: fc.Arbitrary<T>, body: (value: T) => Effect.Effect<void, unknown, Services>) =>
  Effect.gen(function* () {
    const run = Effect.runPromiseWith(yield* Effect.context<Services>())
    yield* Effect.promise(() =>
      fc.assert(
        fc.asyncProperty(arbitrary, (value) => run(body(value))),
        { numRuns: 20 }
      )
    )
  })

/** A fresh organization with two stored keys. */
const twoKeys = Effect.gen(function* () {
  const org = yield* (yield* Organizations).create("Usage Org")
  const keys = yield* ApiKeyStore
  const insert = (name: string) =>
    keys.insert({ orgId: org.id, name, hash: new Uint8Array(randomBytes(32)), displayStart: "pr_live_abcd" })
  return { org: org.id, keys: [(yield* insert("one")).id, (yield* insert("two")).id] as const }
}).pipe(Effect.orDie)

// Instants from now to two days on, so that a case spans UTC days and the audit log's partitions,
// kept ready for the coming months, hold every one of them.
const requestPlan = fc.record({
  key: fc.constantFrom(0, 1),
  afterMs: fc.integer({ min: 0, max: 2 * 86_400_000 }),
  status: fc.constantFrom(200, 204, 304, 400, 401, 404, 429, 500, 503)
})
type RequestPlan = typeof requestPlan extends fc.Arbitrary<infer A> ? A : never

const requestsOf = (org: OrgId, keys: readonly [ApiKeyId, ApiKeyId], plans: ReadonlyArray<RequestPlan>) => {
  const now = DateTime.toEpochMillis(DateTime.nowUnsafe())
  return plans.map(
    (plan): KeyRequest => ({
      at: DateTime.makeUnsafe(now + plan.afterMs),
      keyId: keys[plan.key],
      orgId: org,
      status: plan.status
    })
  )
}

/** The key's days as the model counts them: 3xx with 2xx, newest day first. */
const modelDays = (requests: ReadonlyArray<KeyRequest>, key: ApiKeyId): ReadonlyArray<KeyUsageDay> => {
  const days = new Map<string, { requests2xx: number; requests4xx: number; requests5xx: number }>()
  for (const request of requests.filter((r) => r.keyId === key)) {
    const day = DateTime.formatIso(request.at).slice(0, 10)
    const counts = days.get(day) ?? { requests2xx: 0, requests4xx: 0, requests5xx: 0 }
    if (request.status < 400) counts.requests2xx += 1
    else if (request.status < 500) counts.requests4xx += 1
    else counts.requests5xx += 1
    days.set(day, counts)
  }
  return [...days.entries()].sort(([a], [b]) => (a < b ? 1 : -1)).map(([day, counts]) => ({ day, ...counts }))
}

const lastUse = (requests: ReadonlyArray<KeyRequest>, key: ApiKeyId) => {
  const times = requests.filter((r) => r.keyId === key).map((r) => DateTime.toEpochMillis(r.at))
  return times.length === 0 ? null : Math.max(...times)
}

/** What the stores say of each key: its days and its last use. */
const observed = (org: OrgId, keys: readonly [ApiKeyId, ApiKeyId]) =>
  Effect.forEach(keys, (key) =>
    Effect.gen(function* () {
      const record = Option.getOrThrow(yield* (yield* ApiKeyStore).find(key))
      const used = record.lastUsedAt === null ? null : DateTime.toEpochMillis(record.lastUsedAt)
      return { days: yield* (yield* KeyUsageStore).days(org, key), lastUsedAt: used }
    })
  )

const expected = (requests: ReadonlyArray<KeyRequest>, keys: readonly [ApiKeyId, ApiKeyId]) =>
  keys.map((key) => ({ days: modelDays(requests, key), lastUsedAt: lastUse(requests, key) }))

export const describeKeyUsageStore = <E>(name: string, storeLayer: Layer.Layer<Services, E>) =>
  layer(storeLayer, { excludeTestServices: true, timeout: 120_000 })(`KeyUsageStore contract (${name})`, (it) => {
    it.effect("a key's days count its requests per UTC day by how they were answered, newest day first", () =>
      forAll(fc.tuple(fc.array(requestPlan, { maxLength: 12 }), fc.integer({ min: 1, max: 4 })), ([plans, batches]) =>
        Effect.gen(function* () {
          const { org, keys } = yield* twoKeys
          const requests = requestsOf(org, keys, plans)
          // Recorded in a few calls, as batches of concurrent requests would be.
          const size = Math.ceil(requests.length / batches)
          for (let start = 0; start < requests.length; start += size) {
            yield* (yield* KeyUsageStore).record(requests.slice(start, start + size))
          }
          assert.deepStrictEqual(yield* observed(org, keys), expected(requests, keys))
        })
      )
    )

    it.effect("another organization, an id in another letter case or an unknown key reads no days", () =>
      forAll(fc.array(requestPlan, { minLength: 1, maxLength: 6 }), (plans) =>
        Effect.gen(function* () {
          const { org, keys } = yield* twoKeys
          const other = yield* twoKeys
          yield* (yield* KeyUsageStore).record(requestsOf(org, keys, plans))
          const usage = yield* KeyUsageStore
          for (const key of keys) assert.deepStrictEqual(yield* usage.days(other.org, key), [])
          assert.deepStrictEqual(yield* usage.days(org, other.keys[0]), [])
          const shouted = yield* usage.days(org.toUpperCase() as OrgId, keys[0].toUpperCase() as ApiKeyId)
          assert.deepStrictEqual(shouted, yield* usage.days(org, keys[0]))
        })
      )
    )

    it.effect("an entry the audit log stores is counted on its key once; one without a key on none", () =>
      forAll(fc.array(fc.tuple(requestPlan, fc.boolean()), { maxLength: 10 }), (plans) =>
        Effect.gen(function* () {
          const { org, keys } = yield* twoKeys
          const requests = requestsOf(
            org,
            keys,
            plans.map(([plan]) => plan)
          )
          const audit = yield* AuditLog
          // Concurrent requests: their entries may be stored together.
          yield* Effect.forEach(
            requests,
            (request, index) =>
              audit.record({
                at: request.at,
                requestId: `req_usage_${index}`,
                keyId: plans[index]![1] ? request.keyId : null,
                orgId: org,
                method: "GET",
                path: "/v1/receivables",
                query: "",
                status: request.status,
                durationMs: 1,
                clientAddress: null
              }),
            { concurrency: "unbounded", discard: true }
          )
          const keyed = requests.filter((_, index) => plans[index]![1])
          assert.deepStrictEqual(yield* observed(org, keys), expected(keyed, keys))
        })
      )
    )
  })
