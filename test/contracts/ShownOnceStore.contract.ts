/**
 * The contract of the `ShownOnceStore` port, one suite run against every implementation (the
 * in-memory twin, PostgreSQL): `describeShownOnceStore(name, layer)`. A held secret is taken once,
 * by its handle, kind and organization together, and not after it expires; holding another
 * clears what has expired.
 */
import { assert, layer } from "@effect/vitest"
import { DateTime, Duration, Effect, type Layer, Option } from "effect"
import fc from "fast-check"
import { ShownOnceStore } from "../../core/accounts/ports/ShownOnceStore.ts"
import type { OrgId } from "../../core/shared/domain/Ids.ts"
import type { Organizations } from "../../core/shared/ports/Organizations.ts"
import { digest, newOrg } from "./DashboardUsers.setup.ts"

type Services = ShownOnceStore | Organizations

export const describeShownOnceStore = <E>(name: string, storeLayer: Layer.Layer<Services, E>) =>
  layer(storeLayer, { excludeTestServices: true, timeout: 120_000 })(`ShownOnceStore contract (${name})`, (it) => {
    it.effect("a secret is taken once, by its handle, kind and organization together", () =>
      Effect.gen(function* () {
        const store = yield* ShownOnceStore
        const org = (yield* newOrg).id as OrgId
        const other = (yield* newOrg).id as OrgId
        const now = yield* DateTime.now
        const handleHash = digest()
        yield* store.hold(
          {
            handleHash,
            kind: "pr_new_key",
            orgId: org,
            sealed: "sealed-1",
            expiresAt: DateTime.addDuration(now, Duration.minutes(1))
          },
          now
        )
        assert.isTrue(Option.isNone(yield* store.take(handleHash, "pr_invite_link", org, now)), "another kind")
        assert.isTrue(Option.isNone(yield* store.take(handleHash, "pr_new_key", other, now)), "another organization")
        assert.isTrue(Option.isNone(yield* store.take(digest(), "pr_new_key", org, now)), "another handle")
        assert.deepStrictEqual(yield* store.take(handleHash, "pr_new_key", org, now), Option.some("sealed-1"))
        assert.isTrue(Option.isNone(yield* store.take(handleHash, "pr_new_key", org, now)), "once")
      })
    )

    it.effect("an expired secret is not taken, and holding another clears it", () =>
      Effect.gen(function* () {
        const store = yield* ShownOnceStore
        const org = (yield* newOrg).id as OrgId
        yield* Effect.promise(() =>
          fc.assert(
            fc.asyncProperty(
              fc.integer({ min: 1, max: 120_000 }),
              fc.integer({ min: 0, max: 120_000 }),
              (life, waited) =>
                Effect.runPromise(
                  Effect.gen(function* () {
                    const now = DateTime.makeUnsafe(Date.UTC(2026, 10, 29))
                    const handleHash = digest()
                    const expiresAt = DateTime.addDuration(now, Duration.millis(life))
                    yield* store.hold({ handleHash, kind: "k", orgId: org, sealed: "s", expiresAt }, now)
                    const later = DateTime.addDuration(now, Duration.millis(waited))
                    const taken = yield* store.take(handleHash, "k", org, later)
                    assert.strictEqual(Option.isSome(taken), waited < life)
                  })
                )
            ),
            { numRuns: 25 }
          )
        )
        const now = yield* DateTime.now
        const stale = digest()
        yield* store.hold({ handleHash: stale, kind: "k", orgId: org, sealed: "old", expiresAt: now }, now)
        const later = DateTime.addDuration(now, Duration.seconds(1))
        yield* store.hold(
          {
            handleHash: digest(),
            kind: "k",
            orgId: org,
            sealed: "new",
            expiresAt: DateTime.addDuration(later, Duration.minutes(1))
          },
          later
        )
        assert.isTrue(Option.isNone(yield* store.take(stale, "k", org, now)), "cleared when another was held")
        const unread = digest()
        yield* store.hold({ handleHash: unread, kind: "k", orgId: org, sealed: "unread", expiresAt: later }, now)
        yield* store.take(digest(), "k", org, later)
        assert.isTrue(Option.isNone(yield* store.take(unread, "k", org, now)), "cleared when another was taken")
      })
    )
  })
