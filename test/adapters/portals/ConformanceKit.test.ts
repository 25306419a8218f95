/**
 * The conformance kit's streaming check, held to what it must catch at the size `npm test` runs
 * it: a connector that keeps the documents it gives, or gives one twice.
 */
import { assert, describe, it } from "@effect/vitest"
import { Effect, Stream } from "effect"
import type { FetchedDocument } from "../../../core/receivables/domain/PairSync.ts"
import { type ConformanceFixture, conformanceChecks, streamedDocuments } from "../../support/conformance/Conformance.ts"
import { fixture } from "./fixtures/file.ts"

const streamingCheck = (subject: ConformanceFixture) => {
  const check = conformanceChecks(subject).find((each) => each.name.startsWith("streams "))
  if (check === undefined) throw new Error("the kit has no streaming check")
  return Effect.scoped(check.run)
}

const failureOf = (subject: ConformanceFixture) =>
  Effect.map(Effect.flip(streamingCheck(subject)), (failure) => failure.message)

describe("the conformance kit's streaming check", () => {
  it.effect("refuses a connector that keeps every document it gives", () =>
    Effect.gen(function* () {
      const kept: Array<FetchedDocument> = []
      const keeping: ConformanceFixture = {
        ...fixture,
        connector: {
          ...fixture.connector,
          fetch: (pair) =>
            fixture.connector.fetch(pair).pipe(Stream.tap((document) => Effect.sync(() => kept.push(document))))
        }
      }
      assert.match(yield* failureOf(keeping), /bytes a document .*documents are kept/)
      assert.strictEqual(kept.length, streamedDocuments)
    })
  )

  it.effect("refuses a connector that gives a document twice in place of another", () =>
    Effect.gen(function* () {
      let given = 0
      const repeating: ConformanceFixture = {
        ...fixture,
        connector: {
          ...fixture.connector,
          fetch: (pair) => {
            let previous: FetchedDocument | undefined
            return fixture.connector.fetch(pair).pipe(
              Stream.map((document) => {
                const out = ++given === 5 && previous !== undefined ? previous : document
                previous = document
                return out
              })
            )
          }
        }
      }
      assert.match(yield* failureOf(repeating), /came twice/)
    })
  )
})
