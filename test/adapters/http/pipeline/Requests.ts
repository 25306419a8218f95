/** Requests and answers for the pipeline's step tests: no server, no database. */
import { Effect } from "effect"
import { HttpServerResponse } from "effect/http"
import { RequestContext } from "../../../../adapters/http/pipeline/RequestContext.ts"
import type { Answer } from "../../../../adapters/http/pipeline/Step.ts"

export const requestFor = (
  target: string,
  options: {
    readonly method?: string
    readonly clientAddress?: string | null
    readonly headers?: Record<string, string>
    readonly dashboardMounted?: boolean
  } = {}
) =>
  new RequestContext({
    requestId: "req_000000000000000000000001",
    method: options.method ?? "GET",
    target,
    startedMillis: 1_764_000_000_000,
    startedNanos: 1_764_000_000_000_000_000n,
    clientAddress: options.clientAddress === undefined ? "127.0.0.1" : options.clientAddress,
    secure: false,
    dashboardMounted: options.dashboardMounted ?? false,
    headers: options.headers ?? {},
    keyBrand: "pr"
  })

/** An answer that counts how often the rest of the pipeline ran. */
export const counted = (response = HttpServerResponse.text("ok")) => {
  const runs = { count: 0 }
  const next: Answer<never> = Effect.sync(() => {
    runs.count++
    return response
  })
  return { runs, next }
}

/** The JSON body of an answer the pipeline built. */
export const bodyOf = (response: HttpServerResponse.HttpServerResponse): unknown => {
  const body = response.body
  if (body._tag !== "Uint8Array") throw new Error(`expected bytes, got ${body._tag}`)
  return JSON.parse(new TextDecoder().decode(body.body))
}

export const textOf = (response: HttpServerResponse.HttpServerResponse): string => {
  const body = response.body
  if (body._tag !== "Uint8Array") throw new Error(`expected bytes, got ${body._tag}`)
  return new TextDecoder().decode(body.body)
}
