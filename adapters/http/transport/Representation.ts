/**
 * How a successful GET answer of the API travels: a strong `ETag` over its exact bytes, `304 Not
 * Modified` (no body, the same tag) when `If-None-Match` names it, and otherwise the bytes in the
 * content coding the client prefers once they pass the threshold, with `Vary: Accept-Encoding`.
 * The answer is computed before the tag can be, so a 304 saves the transfer, not the query.
 * Error answers pass unchanged: they get no tag and are too small to compress. An answer written
 * as it is read (a stream) is compressed as it flows and carries no tag.
 */
import { Effect } from "effect"
import { HttpBody, HttpServerResponse } from "effect/http"
import * as Compression from "./Compression.ts"
import * as ContentCoding from "./ContentCoding.ts"
import * as EntityTag from "./EntityTag.ts"

export interface Conditions {
  readonly "accept-encoding"?: string | undefined
  readonly "if-none-match"?: string | undefined
}

/**
 * Each key's answers are its own and change with the data: a browser may keep them but must ask
 * again every time (its `If-None-Match` then makes that cheap), and shared caches keep none.
 */
const cacheControl = "private, no-cache"

/** The coding for a body of `length` bytes of `contentType`: identity below the threshold. */
export const codingFor = (
  contentType: string | undefined,
  length: number,
  acceptEncoding: string | undefined
): ContentCoding.Coding =>
  Compression.isCompressible(contentType) && length >= Compression.thresholdBytes
    ? ContentCoding.negotiate(acceptEncoding)
    : "identity"

// What a 304 may say of the representation it stands for (RFC 9110 15.4.5): its validators and
// caching. Not its length or type: a cache would take them for those of the body it holds.
const notModifiedHeaders = ["etag", "cache-control", "vary", "expires", "content-location"]

/** The `304 Not Modified` for a representation with these headers: those a 304 carries, no body. */
export const notModified = (headers: { readonly [name: string]: string }): HttpServerResponse.HttpServerResponse =>
  HttpServerResponse.empty({
    status: 304,
    headers: Object.fromEntries(notModifiedHeaders.flatMap((name) => (name in headers ? [[name, headers[name]!]] : [])))
  })

/** `response` as it should leave: tagged, and compressed or answered 304. */
export const represent = (
  response: HttpServerResponse.HttpServerResponse,
  conditions: Conditions
): Effect.Effect<HttpServerResponse.HttpServerResponse> => {
  const body = response.body
  if (response.status === 200 && body._tag === "Stream") return Effect.succeed(representStreamed(response, conditions))
  if (response.status !== 200 || body._tag !== "Uint8Array") return Effect.succeed(response)
  // The body as bytes, encoded once: they are digested, compressed or sent as they are.
  const bytes = body.body
  const coding = codingFor(body.contentType, bytes.length, conditions["accept-encoding"])
  const etag = EntityTag.of(EntityTag.digest(bytes), coding)
  const headers = {
    etag,
    "cache-control": cacheControl,
    ...(Compression.isCompressible(body.contentType) ? { vary: "Accept-Encoding" } : {})
  }
  const held = conditions["if-none-match"]
  if (held !== undefined && EntityTag.noneMatch(held, etag)) {
    return Effect.succeed(notModified(headers))
  }
  const tagged = HttpServerResponse.setHeaders(response, headers)
  if (coding === "identity") {
    return Effect.succeed(HttpServerResponse.setBody(tagged, HttpBody.uint8Array(bytes, body.contentType)))
  }
  return Effect.map(Compression.compress(bytes, coding), (compressed) =>
    HttpServerResponse.setHeader(
      HttpServerResponse.setBody(tagged, HttpBody.uint8Array(compressed, body.contentType)),
      "content-encoding",
      coding
    )
  )
}

/**
 * An answer written as it is read: no `ETag` and no length, which would need the whole body
 * first; compressed as it flows when the client accepts it. `If-None-Match: *` still matches it,
 * as it matches every current answer.
 */
const representStreamed = (
  response: HttpServerResponse.HttpServerResponse,
  conditions: Conditions
): HttpServerResponse.HttpServerResponse => {
  const body = response.body as HttpBody.Stream
  const compressible = Compression.isCompressible(body.contentType)
  const headers = { "cache-control": cacheControl, ...(compressible ? { vary: "Accept-Encoding" } : {}) }
  const held = conditions["if-none-match"]
  if (held !== undefined && EntityTag.matchesAny(held)) return notModified(headers)
  const coding = compressible ? ContentCoding.negotiate(conditions["accept-encoding"]) : "identity"
  const described = HttpServerResponse.setHeaders(response, headers)
  if (coding === "identity") return described
  return HttpServerResponse.setHeader(
    HttpServerResponse.setBody(
      described,
      HttpBody.stream(Compression.compressStream(body.stream, coding), body.contentType)
    ),
    "content-encoding",
    coding
  )
}

/**
 * `response` compressed as the client prefers, untagged and with its own caching: for pages that
 * nothing may keep (the dashboard's, `no-store`), where a tag would never be sent back.
 */
export const compressed = (
  response: HttpServerResponse.HttpServerResponse,
  acceptEncoding: string | undefined
): Effect.Effect<HttpServerResponse.HttpServerResponse> => {
  const body = response.body
  if (body._tag !== "Uint8Array" || !Compression.isCompressible(body.contentType)) return Effect.succeed(response)
  const varied = HttpServerResponse.setHeader(response, "vary", "Accept-Encoding")
  const coding = codingFor(body.contentType, body.body.length, acceptEncoding)
  if (coding === "identity") return Effect.succeed(varied)
  return Effect.map(Compression.compress(body.body, coding), (bytes) =>
    HttpServerResponse.setHeader(
      HttpServerResponse.setBody(varied, HttpBody.uint8Array(bytes, body.contentType)),
      "content-encoding",
      coding
    )
  )
}
