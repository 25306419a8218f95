/**
 * The answers that never change while the process runs (the `/docs` page and its script, the
 * OpenAPI document, the icon): compressed once per process with gzip and brotli at their best
 * quick levels, off the event loop, then served from memory in the encoding the client accepts,
 * with a strong `ETag` per encoding (a `304` to a matching `If-None-Match`) and the route's cache
 * policy. Every answer of one page is the same buffer, so clients that do not read (pipelining
 * requests) hold references to it rather than copies.
 */
import { Effect } from "effect"
import { HttpServerResponse } from "effect/http"
import * as Compression from "./Compression.ts"
import * as EntityTag from "./EntityTag.ts"
import type { Conditions } from "./Representation.ts"
import { codingFor, notModified } from "./Representation.ts"

interface Encoded {
  readonly digest: string
  readonly contentType: string
  readonly identity: Uint8Array
  readonly gzip: Uint8Array
  readonly br: Uint8Array
}

/** Without a policy of the route's own: five minutes. */
const defaultCacheControl = "public, max-age=300"

// By the response the route memoizes: computed on its first request, then reused; the promise is
// kept so that requests arriving while it compresses wait for the same work.
const encodings = new WeakMap<HttpServerResponse.HttpServerResponse, Promise<Encoded>>()

const encode = (bytes: Uint8Array, contentType: string): Effect.Effect<Encoded> =>
  Effect.map(
    Effect.all(
      [
        Compression.compress(bytes, "gzip", Compression.staticLevels),
        Compression.compress(bytes, "br", Compression.staticLevels)
      ],
      { concurrency: 2 }
    ),
    ([gzip, br]) => ({ digest: EntityTag.digest(bytes), contentType, identity: bytes, gzip, br })
  )

const encodingsOf = (response: HttpServerResponse.HttpServerResponse, bytes: Uint8Array, contentType: string) => {
  let known = encodings.get(response)
  if (known === undefined) {
    known = Effect.runPromise(encode(bytes, contentType))
    encodings.set(response, known)
  }
  return known
}

/** `response` (a static answer) in the client's encoding, or a 304 if it holds it already. */
export const serve = (
  response: HttpServerResponse.HttpServerResponse,
  conditions: Conditions
): Effect.Effect<HttpServerResponse.HttpServerResponse> => {
  const body = response.body
  if (response.status !== 200 || body._tag !== "Uint8Array") return Effect.succeed(response)
  const bytes = body.body
  return Effect.map(
    Effect.promise(() => encodingsOf(response, bytes, body.contentType)),
    (encoded) => {
      const coding = codingFor(encoded.contentType, bytes.length, conditions["accept-encoding"])
      const headers = {
        ...response.headers,
        etag: EntityTag.of(encoded.digest, coding),
        "cache-control": response.headers["cache-control"] ?? defaultCacheControl,
        ...(Compression.isCompressible(encoded.contentType) ? { vary: "Accept-Encoding" } : {})
      }
      const held = conditions["if-none-match"]
      if (held !== undefined && EntityTag.noneMatch(held, headers.etag)) {
        return notModified(headers)
      }
      return HttpServerResponse.uint8Array(encoded[coding], {
        contentType: encoded.contentType,
        headers: coding === "identity" ? headers : { ...headers, "content-encoding": coding }
      })
    }
  )
}
