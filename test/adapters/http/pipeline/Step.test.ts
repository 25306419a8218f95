/** The pipeline's composition: steps meet a request in their order, outermost first. */
import { assert, describe, it } from "@effect/vitest"
import { Effect } from "effect"
import { HttpServerResponse } from "effect/http"
import fc from "fast-check"
import { chain, type Step } from "../../../../adapters/http/pipeline/Step.ts"
import { requestFor } from "./Requests.ts"

describe("chain", () => {
  it.effect("runs every step around the innermost, in order in and in reverse out", () =>
    Effect.gen(function* () {
      const names = fc.sample(fc.uniqueArray(fc.string({ minLength: 1, maxLength: 4 }), { maxLength: 8 }), 20)
      for (const list of names) {
        const seen: Array<string> = []
        const steps: Array<Step> = list.map(
          (name) => (_request, next) =>
            Effect.sync(() => seen.push(`in ${name}`)).pipe(
              Effect.andThen(next),
              Effect.tap(() => Effect.sync(() => seen.push(`out ${name}`)))
            )
        )
        yield* chain(steps, () =>
          Effect.sync(() => {
            seen.push("innermost")
            return HttpServerResponse.text("ok")
          })
        )(requestFor("/v1/vendors"))
        assert.deepStrictEqual(seen, [
          ...list.map((name) => `in ${name}`),
          "innermost",
          ...[...list].reverse().map((name) => `out ${name}`)
        ])
      }
    })
  )

  it.effect("a step that answers itself never runs the rest", () =>
    Effect.gen(function* () {
      let ran = false
      const refuse: Step = () => Effect.succeed(HttpServerResponse.empty({ status: 429 }))
      const answer = yield* chain([refuse], () =>
        Effect.sync(() => {
          ran = true
          return HttpServerResponse.text("ok")
        })
      )(requestFor("/v1/vendors"))
      assert.strictEqual(answer.status, 429)
      assert.isFalse(ran)
    })
  )
})
