/**
 * A step of the request pipeline: given the request and the rest of the pipeline (`next`, not yet
 * run), it answers: by running `next` and changing its answer, or by answering itself without it.
 * Steps handle every failure they meet, so an answer never fails; and they need nothing the rest
 * of the pipeline does not (their services are taken once, when the pipeline is built).
 */
import type { Effect } from "effect"
import type { HttpServerResponse } from "effect/http"
import type { RequestContext } from "./RequestContext.ts"

export type Answer<R> = Effect.Effect<HttpServerResponse.HttpServerResponse, never, R>

export type Step = <R>(request: RequestContext, next: Answer<R>) => Answer<R>

/** The steps around `innermost`, the first step outermost: the order a request meets them. */
export const chain =
  <R>(steps: ReadonlyArray<Step>, innermost: (request: RequestContext) => Answer<R>) =>
  (request: RequestContext): Answer<R> => {
    let answer = innermost(request)
    for (let i = steps.length - 1; i >= 0; i--) answer = steps[i]!(request, answer)
    return answer
  }
