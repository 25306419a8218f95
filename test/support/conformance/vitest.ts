/**
 * The conformance kit as a vitest suite: one test per check, named after it. A connector's test
 * file needs one line: `describeConformance(fixture)`.
 */
import { describe, it } from "@effect/vitest"
import { Effect } from "effect"
import { type ConformanceFixture, conformanceChecks } from "./Conformance.ts"

export const describeConformance = (fixture: ConformanceFixture, variant?: string) =>
  describe(`${fixture.connector.kind} connector conformance${variant === undefined ? "" : ` (${variant})`}`, () => {
    for (const check of conformanceChecks(fixture)) {
      it.effect(
        check.name,
        () =>
          Effect.gen(function* () {
            const note = yield* Effect.scoped(check.run)
            if (note !== undefined) console.info(`${fixture.connector.kind}: ${check.name}: ${note}`)
          }),
        { timeout: 180_000 }
      )
    }
  })
