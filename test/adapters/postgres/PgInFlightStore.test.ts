/**
 * A process that dies while answering leaves its rows of `requests_in_flight`: another process is
 * held back by them only until their lease ends, then the key's places are free again.
 */
import { randomUUID } from "node:crypto"
import { assert, layer } from "@effect/vitest"
import { Duration, Effect } from "effect"
import * as PgInFlightStore from "../../../adapters/postgres/PgInFlightStore.ts"
import { InFlightStore } from "../../../core/access/ports/InFlightStore.ts"
import { eventually } from "../../support/Eventually.ts"
import * as TestDatabase from "../../support/TestDatabase.ts"

/** A process's store: an instance of its own over the one database, leasing rows for 300 ms. */
const processStore = Effect.provide(InFlightStore, PgInFlightStore.layerWith(Duration.millis(300)))

layer(TestDatabase.layer, { timeout: 60_000 })("PgInFlightStore", (it) => {
  it.effect("a crashed process's requests count until their lease ends, not for good", () =>
    Effect.gen(function* () {
      const crashed = yield* processStore
      const survivor = yield* processStore
      const owner = { keyId: randomUUID(), orgId: randomUUID() }
      const caps = { perKey: 1, perOrganization: 1 }
      // Admitted, and never released: the process died with the request.
      assert.strictEqual((yield* crashed.admit(owner, caps))._tag, "Admitted")
      assert.deepStrictEqual(yield* survivor.admit(owner, caps), { _tag: "Refused", scope: "key" })
      yield* eventually(
        "the key admitted again once the lease ended",
        Effect.map(survivor.admit(owner, caps), (admission) => admission._tag === "Admitted")
      )
    })
  )
})
