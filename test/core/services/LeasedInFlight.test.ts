/**
 * What a refusal of requests in flight costs with leased shares: a process that holds a budget's
 * whole cap, all of it in use, refuses past it without asking the share store (a statement with
 * PostgreSQL), and a place released is taken again without asking; a process that holds part of
 * the cap still asks, since another may give places back.
 */
import { randomUUID } from "node:crypto"
import { assert, describe, it } from "@effect/vitest"
import { Duration, Effect, Layer } from "effect"
import * as MemoryInFlightShareStore from "../../../core/access/memory/InFlightShareStore.ts"
import { InFlightShareStore } from "../../../core/access/ports/InFlightShareStore.ts"
import type { InFlightAdmission } from "../../../core/access/ports/InFlightStore.ts"
import * as LeasedInFlight from "../../../core/access/services/LeasedInFlight.ts"

const timing = { lease: Duration.seconds(5), heartbeat: Duration.seconds(1) }

/** The memory share store, counting the grants it is asked for. */
const counting = Effect.gen(function* () {
  const store = yield* InFlightShareStore
  const asked = { grants: 0 }
  return {
    asked,
    layer: Layer.succeed(
      InFlightShareStore,
      InFlightShareStore.of({
        ...store,
        grant: (...args) =>
          Effect.andThen(
            Effect.sync(() => asked.grants++),
            store.grant(...args)
          )
      })
    )
  }
})

/** Two processes' stores over one share store, and the count of grants asked of it. */
const processes = Effect.gen(function* () {
  const { asked, layer } = yield* counting
  const one = yield* Effect.provide(LeasedInFlight.make(randomUUID(), timing), layer)
  const other = yield* Effect.provide(LeasedInFlight.make(randomUUID(), timing), layer)
  return { asked, one, other }
}).pipe(Effect.provide(MemoryInFlightShareStore.layer))

const released = (admission: InFlightAdmission) =>
  admission._tag === "Admitted" ? admission.release : Effect.die("refused")

describe("LeasedInFlight", () => {
  it.effect("refuses past a whole cap held and in use without asking the store; a release is taken again here", () =>
    Effect.gen(function* () {
      const { asked, one } = yield* processes
      const orgId = randomUUID()
      const [first, second] = [randomUUID(), randomUUID()]
      const caps = { perKey: 2, perOrganization: 3 }
      const held = [yield* one.admit({ keyId: first, orgId }, caps), yield* one.admit({ keyId: first, orgId }, caps)]
      const grantsToFill = asked.grants
      for (let i = 0; i < 50; i++) {
        assert.deepStrictEqual(yield* one.admit({ keyId: first, orgId }, caps), { _tag: "Refused", scope: "key" })
      }
      // The first refusal asked (the key's share was below its cap until then), none after it.
      assert.isAtMost(asked.grants, grantsToFill + 1)
      yield* one.admit({ keyId: second, orgId }, caps)
      const grantsToFillOrganization = asked.grants
      for (let i = 0; i < 50; i++) {
        assert.deepStrictEqual(yield* one.admit({ keyId: second, orgId }, caps), {
          _tag: "Refused",
          scope: "organization"
        })
      }
      assert.isAtMost(asked.grants, grantsToFillOrganization + 1)
      yield* released(held[0]!)
      const grantsBeforeRelease = asked.grants
      assert.strictEqual((yield* one.admit({ keyId: first, orgId }, caps))._tag, "Admitted")
      assert.strictEqual(asked.grants, grantsBeforeRelease)
    }).pipe(Effect.scoped)
  )

  it.effect("with part of the cap held, a full share still asks: another process may give places back", () =>
    Effect.gen(function* () {
      const { asked, one, other } = yield* processes
      const orgId = randomUUID()
      const keyId = randomUUID()
      const caps = { perKey: 2, perOrganization: 5 }
      yield* one.admit({ keyId, orgId }, caps)
      yield* other.admit({ keyId, orgId }, caps)
      for (let i = 0; i < 3; i++) {
        const grants = asked.grants
        assert.deepStrictEqual(yield* one.admit({ keyId, orgId }, caps), { _tag: "Refused", scope: "key" })
        assert.strictEqual(asked.grants, grants + 1)
      }
    }).pipe(Effect.scoped)
  )
})
