/** Every answer, whatever produced it, names its request: `Request-Id`, as the audit log keeps it. */
import { Effect } from "effect"
import { HttpServerResponse } from "effect/http"
import type { Step } from "./Step.ts"

export const requestIdHeader = "request-id"

export const step: Step = (request, next) =>
  Effect.map(next, (response) => HttpServerResponse.setHeader(response, requestIdHeader, request.requestId))
