/**
 * The directory's rules on the in-memory stores, with virtual time: each refusal, word for word
 * (the CLI prints them), for unknown and malformed ids alike; what a created integration holds;
 * pausing and resuming against the clock; the runs an integration shows.
 */
import { randomUUID } from "node:crypto"
import { assert, describe, it } from "@effect/vitest"
import { Context, DateTime, Duration, Effect, Layer, Option, Schema, Stream } from "effect"
import { TestClock } from "effect/testing"
import { states as memoryStates } from "../../../core/memory/MemoryStorage.ts"
import * as MemoryDirectoryStore from "../../../core/receivables/memory/DirectoryStore.ts"
import { type PortalConnector, PortalConnectors } from "../../../core/receivables/ports/PortalConnector.ts"
import { Directory, type NewIntegration, runsShown } from "../../../core/receivables/services/Directory.ts"
import type { PairId } from "../../../core/shared/domain/Ids.ts"
import * as MemoryOrganizations from "../../../core/shared/memory/Organizations.ts"
import { Organizations } from "../../../core/shared/ports/Organizations.ts"

const start = DateTime.makeUnsafe("2026-05-01T08:00:00Z")

const connector: PortalConnector = {
  kind: "test",
  configSchema: Schema.Struct({ seed: Schema.Number }),
  statusMapping: new Map(),
  defaultInterval: Duration.hours(2),
  fetch: () => Stream.empty
}

const setup = Effect.gen(function* () {
  yield* TestClock.setTime(DateTime.toEpochMillis(start))
  const context = yield* Layer.build(
    Directory.layer.pipe(
      Layer.provideMerge(Layer.mergeAll(MemoryDirectoryStore.layerMemory, MemoryOrganizations.layerMemory)),
      Layer.provide(memoryStates),
      Layer.provide(
        Layer.succeed(PortalConnectors, { get: (kind) => Option.liftPredicate(connector, (c) => c.kind === kind) })
      )
    )
  )
  const directory = Context.get(context, Directory)
  const org = yield* Context.get(context, Organizations).create("Directory Org")
  const vendor = yield* directory.createVendor(org.id, "Acme")
  const debtor = yield* directory.createDebtor("Globex")
  const pair: NewIntegration = {
    org: org.id,
    vendor: vendor.id,
    debtor: debtor.id,
    connector: "test",
    config: { seed: 1 }
  }
  return { context, directory, org, vendor, debtor, pair }
}).pipe(Effect.scoped)

const refusal = <A, R>(effect: Effect.Effect<A, { readonly message: string }, R>) =>
  Effect.map(Effect.flip(effect), (error) => error.message)

describe("Directory", () => {
  it.effect("names are trimmed and must not be empty; an organization must exist, whatever the form of its id", () =>
    Effect.gen(function* () {
      const { directory, org } = yield* setup
      assert.strictEqual((yield* directory.createVendor(org.id, "  Initech ")).name, "Initech")
      assert.strictEqual(yield* refusal(directory.createVendor(org.id, "   ")), "a name must not be empty")
      assert.strictEqual(yield* refusal(directory.createDebtor("")), "a name must not be empty")
      for (const id of ["not-an-id", randomUUID()]) {
        assert.strictEqual(yield* refusal(directory.createVendor(id, "Acme")), `no organization with id "${id}"`)
        assert.strictEqual(yield* refusal(directory.listVendors(id)), `no organization with id "${id}"`)
        assert.strictEqual(yield* refusal(directory.listIntegrations(id)), `no organization with id "${id}"`)
      }
      assert.deepStrictEqual(
        (yield* directory.listVendors(org.id.toUpperCase())).map((v) => v.name),
        ["Acme", "Initech"]
      )
    })
  )

  it.effect(
    "an integration needs the organization's vendor, a debtor, a known connector and a configuration it accepts",
    () =>
      Effect.gen(function* () {
        const { context, directory, pair, org } = yield* setup
        const stranger = yield* Context.get(context, Organizations).create("Another Org")
        const elsewhere = (yield* directory.createVendor(stranger.id, "Theirs")).id
        const cases: ReadonlyArray<readonly [Partial<NewIntegration>, string]> = [
          [{ vendor: "v-1" }, `no vendor with id "v-1" in organization ${org.id}`],
          [{ vendor: elsewhere }, `no vendor with id "${elsewhere}" in organization ${org.id}`],
          [{ debtor: "d-1" }, `no debtor with id "d-1"`],
          [{ connector: "fax" }, `no connector of kind "fax"`],
          [{ config: { seed: "x" } }, `invalid test configuration at "seed": Expected number`],
          [{ config: { seed: 1, extra: true } }, `invalid test configuration at "extra": Expected no excess property`],
          [{ interval: Duration.seconds(59) }, "the interval must be at least one minute"],
          [{ deadline: Duration.seconds(9) }, "the deadline must be between 10s and 9m"],
          [{ deadline: Duration.minutes(10) }, "the deadline must be between 10s and 9m"]
        ]
        for (const [change, message] of cases) {
          assert.strictEqual(yield* refusal(directory.createIntegration({ ...pair, ...change })), message)
        }
        assert.deepStrictEqual(yield* directory.listIntegrations(pair.org), [])
      })
  )

  it.effect("a new integration is due now, at the connector's interval unless given, once per pair", () =>
    Effect.gen(function* () {
      const { directory, pair, vendor, debtor } = yield* setup
      const created = yield* directory.createIntegration(pair)
      assert.deepInclude(created, {
        vendor: { id: vendor.id, name: "Acme" },
        debtor: { id: debtor.id, name: "Globex" }
      })
      assert.deepInclude(created, { connector: "test", paused: false, deadline: null, consecutiveFailures: 0 })
      assert.strictEqual(Duration.toMillis(created.interval), Duration.toMillis(Duration.hours(2)))
      assert.isTrue(DateTime.Equivalence(created.nextSyncAt!, start))
      assert.strictEqual(
        yield* refusal(directory.createIntegration({ ...pair, interval: Duration.minutes(5) })),
        "this vendor and debtor already have an integration"
      )
      assert.deepStrictEqual(yield* directory.listIntegrations(pair.org), [created])
    })
  )

  it.effect("pausing hides the next sync; resuming later restores the planned one, not the resume time", () =>
    Effect.gen(function* () {
      const { directory, pair } = yield* setup
      const created = yield* directory.createIntegration({ ...pair, deadline: Duration.seconds(90) })
      const paused = yield* directory.setPaused(created.id, true)
      assert.deepInclude(paused, { paused: true, nextSyncAt: null })
      yield* TestClock.adjust("3 hours")
      const resumed = yield* directory.setPaused(created.id, false)
      assert.isFalse(resumed.paused)
      assert.isTrue(DateTime.Equivalence(resumed.nextSyncAt!, start))
      // Resuming a running pair keeps its schedule.
      yield* TestClock.adjust("1 hour")
      const again = yield* directory.setPaused(created.id, false)
      assert.isTrue(DateTime.Equivalence(again.nextSyncAt!, resumed.nextSyncAt!))
    })
  )

  it.effect("an integration shows its newest runs first, at most ten; an unknown id is refused", () =>
    Effect.gen(function* () {
      const { context, directory, pair } = yield* setup
      const created = yield* directory.createIntegration(pair)
      const seeding = Context.get(context, MemoryDirectoryStore.MemoryDirectory)
      for (let minute = 0; minute < 12; minute++) {
        yield* seeding.addRun(created.id, {
          startedAt: DateTime.add(start, { minutes: minute }),
          finishedAt: null,
          outcome: "succeeded",
          fetched: minute,
          created: 0,
          updated: 0,
          unchanged: 0,
          quarantined: 0,
          quarantine: [],
          error: null
        })
      }
      const shown = yield* directory.showIntegration(created.id)
      assert.deepStrictEqual(shown.integration, created)
      assert.deepStrictEqual(
        shown.runs.map((run) => run.fetched),
        [11, 10, 9, 8, 7, 6, 5, 4, 3, 2]
      )
      assert.strictEqual(shown.runs.length, runsShown)
      for (const id of ["nope", randomUUID() as PairId]) {
        assert.strictEqual(yield* refusal(directory.showIntegration(id)), `no integration with id "${id}"`)
        assert.strictEqual(yield* refusal(directory.setPaused(id, true)), `no integration with id "${id}"`)
      }
    })
  )
})
