/**
 * The webhooks' request bodies, read before HttpApi decodes them, so that each way a body can be
 * wrong gets the documented error body: a Content-Type the endpoint does not read is 415 (HttpApi
 * would answer it in plain text); more than `maxWebhooksBody` is 400, read no further, so a key
 * cannot make the service hold a large body; bytes that are not UTF-8 are 400 (decoded, they
 * would reach the endpoint as U+FFFD, a description silently changed).
 *
 * The body is read in a fiber of its own, and the request is marked while it waits for it
 * (`bodyArriving`). A read that is interrupted destroys the connection, so the request deadline,
 * which interrupts the request, would leave the client without an answer; it interrupts only the
 * wait, and `Failures` answers 408 for a body still arriving, closing the connection. The read
 * ends with the connection, at the latest.
 */
import { ByteSize, Effect, Fiber, Layer } from "effect"
import { HttpIncomingMessage, type HttpServerError, HttpServerRequest } from "effect/http"
import { InvalidRequest, UnsupportedMediaType } from "../../../core/api/Errors.ts"
import { WebhooksBody } from "../../../core/api/WebhooksApi.ts"
import { CurrentRequest } from "../pipeline/RequestContext.ts"

/** The most a webhooks request's JSON body may hold: a URL, a few types, a description. */
export const maxWebhooksBody = ByteSize.kibibytes(16)

/** A Content-Type as HttpApi matches it to an endpoint's payloads: its media type, in lower case. */
const mediaType = (contentType: string) => contentType.split(";", 1)[0]!.trim().toLowerCase()

const utf8 = new TextDecoder("utf-8", { fatal: true })

const isUtf8 = (bytes: ArrayBuffer) => {
  try {
    utf8.decode(bytes)
    return true
  } catch {
    return false
  }
}

const tooLarge = (error: HttpServerError.HttpServerError) =>
  error.reason._tag === "RequestParseError" && error.reason.reason === "BodyTooLarge"

/** The body's bytes, read whole within the bound; the request marked while they arrive. */
const bodyOf = (request: HttpServerRequest.HttpServerRequest) =>
  Effect.gen(function* () {
    const noted = yield* CurrentRequest
    const reading = yield* Effect.forkDetach(
      Effect.provideService(request.arrayBuffer, HttpIncomingMessage.MaxBodySize, maxWebhooksBody)
    )
    if (noted !== undefined) noted.bodyArriving = true
    // Left marked if the wait is interrupted: the deadline's answer depends on it.
    const read = yield* Fiber.await(reading)
    if (noted !== undefined) noted.bodyArriving = false
    return yield* read.pipe(
      Effect.catchIf(tooLarge, () => Effect.fail(InvalidRequest.bodyTooLarge(ByteSize.format(maxWebhooksBody)))),
      // The client left, or broke the framing: nobody reads an answer, which is then a fault.
      Effect.catchTag("HttpServerError", Effect.die)
    )
  })

export const layer = Layer.succeed(
  WebhooksBody,
  WebhooksBody.of((httpEffect, { endpoint }) =>
    Effect.gen(function* () {
      const request = yield* HttpServerRequest.HttpServerRequest
      // As HttpApi reads it: a body without a Content-Type is taken for JSON.
      const contentType = mediaType(request.headers["content-type"] ?? "application/json")
      if (!endpoint.payload.has(contentType)) {
        return yield* UnsupportedMediaType.of(contentType, [...endpoint.payload.keys()])
      }
      if (!isUtf8(yield* bodyOf(request))) return yield* InvalidRequest.bodyNotUtf8()
      return yield* httpEffect
    })
  )
)
