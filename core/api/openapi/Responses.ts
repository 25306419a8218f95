/**
 * Every answer an operation can get, with its headers, as the service sends it. HttpApi documents
 * what the endpoints and their middlewares declare; the request pipeline around them
 * (`adapters/http/pipeline/Pipeline.ts`, `transport/Representation.ts`) adds to every operation under `/v1`:
 * a `Request-Id` on every answer; the rate-limit headers on answers to an accepted key; an `ETag`
 * on a success (but a receivables page written as it is read), and to a GET 304 when
 * `If-None-Match` names it; 405 for any other method, with
 * `Allow` naming the path's methods; 500 for anything
 * unexpected; 503 with `Retry-After` when the database cannot be used, the request could not be
 * audited or its deadline passed. Every error answer has the one body of
 * `ErrorBody`.
 */
import { SchemaAST } from "effect"
import type { OpenApi } from "effect/http-api"
import { ErrorBody, InternalError, MethodNotAllowed, ServiceUnavailable } from "../Errors.ts"
import { componentRef } from "./Json.ts"
import { mapOperations } from "./Operations.ts"

type Header = OpenApi.OpenAPISpecHeader

const requestId: Header = {
  description: "Identifies this request and its answer: quote it to support.",
  required: true,
  schema: { type: "string", pattern: "^req_[0-9a-f]{24}$" }
}

const rateLimit = (required: boolean): Record<string, Header> => {
  const when = required ? "" : " Sent when the request carried an accepted key."
  return {
    "RateLimit-Limit": {
      description: `The requests this key may make in one burst.${when}`,
      required,
      schema: { type: "integer", minimum: 1 }
    },
    "RateLimit-Remaining": {
      description: `The requests this key may still make now.${when}`,
      required,
      schema: { type: "integer", minimum: 0 }
    },
    "RateLimit-Reset": {
      description: `Seconds until this key's full burst is available again.${when}`,
      required,
      schema: { type: "integer", minimum: 0 }
    }
  }
}

const retryAfter: Header = {
  description: "Seconds to wait before the next request can pass.",
  required: true,
  schema: { type: "integer", minimum: 1 }
}

const allow = (methods: string): Header => ({
  description: "The methods the path answers.",
  required: true,
  schema: { type: "string", enum: [methods] }
})

const methodOrder = ["get", "post", "patch", "put", "delete"]

/** The path's methods as `Allow` lists them. */
const methodsOf = (item: object) =>
  methodOrder
    .filter((method) => method in item)
    .map((method) => method.toUpperCase())
    .join(", ")

const entityTag: Header = {
  description:
    "A strong tag of this answer's exact bytes, one per content coding. Send it back in `If-None-Match` to get a 304 while the answer is unchanged.",
  required: true,
  schema: { type: "string" }
}

/**
 * The receivables list writes a page that expands `history` or `metadata` and needs more than one
 * read as it reads it (`adapters/http/transport/StreamedPage.ts`): its bytes, and so its tag, are
 * not known before they are sent.
 */
const streamedPaths: ReadonlySet<string> = new Set(["/v1/receivables"])

const streamedEntityTag: Header = {
  ...entityTag,
  description: `${entityTag.description} Absent from a page written as it is read (one that expands \`history\` or \`metadata\` and needs more than one read, sent without \`Content-Length\`): every other answer has it.`,
  required: false
}

const cacheControl: Header = {
  description: "The answer is this key's and changes with the data: keep it, but revalidate it on every use.",
  required: true,
  schema: { type: "string", enum: ["private, no-cache"] }
}

const ifNoneMatch: OpenApi.OpenAPISpecParameter = {
  name: "If-None-Match",
  in: "header",
  required: false,
  description:
    "The `ETag` of an answer you hold: if it is still current, the answer is 304 without a body. `*` matches any current answer (RFC 9110, 13.1.2), so it is a 304 on every GET, the receivables list included: send the tag you hold instead. A tag held from the receivables list matches again only while its `next_verified_since` stands still, which it does while a sync of one of your pairs runs.",
  schema: { type: "string" }
}

const errorContent = { "application/json": { schema: componentRef(SchemaAST.resolveIdentifier(ErrorBody.ast)!) } }

const descriptionOf = (error: { readonly ast: SchemaAST.AST }) => SchemaAST.resolveDescription(error.ast)!

/** The answers the request pipeline gives, whatever the operation (`methods`: the path's). */
const envelopeResponses = (methods: string): Record<number, OpenApi.OpenApiSpecResponse> => ({
  405: {
    description: `Any other method on this path. ${descriptionOf(MethodNotAllowed)}.`,
    headers: { "Request-Id": requestId, Allow: allow(methods) },
    content: errorContent
  },
  500: {
    description: descriptionOf(InternalError),
    headers: { "Request-Id": requestId, ...rateLimit(false) },
    content: errorContent
  },
  503: {
    description: descriptionOf(ServiceUnavailable),
    headers: { "Request-Id": requestId, "Retry-After": retryAfter },
    content: errorContent
  }
})

/** A success, and its revalidation: only an accepted key gets either. */
const successHeaders = { "Request-Id": requestId, ETag: entityTag, "Cache-Control": cacheControl, ...rateLimit(true) }

const notModified: OpenApi.OpenApiSpecResponse = {
  description: "Not Modified: the answer named by `If-None-Match` is still current. No body.",
  headers: successHeaders
}

/** The headers of an answer the operation at `path` itself gives, by its status. */
const headersOf = (status: number, path: string): Record<string, Header> => {
  if (status < 300) return streamedPaths.has(path) ? { ...successHeaders, ETag: streamedEntityTag } : successHeaders
  if (status === 401) return { "Request-Id": requestId }
  if (status === 429) return { "Request-Id": requestId, "Retry-After": retryAfter, ...rateLimit(false) }
  return { "Request-Id": requestId, ...rateLimit(false) }
}

const documented = (
  status: number,
  response: OpenApi.OpenApiSpecResponse,
  path: string
): OpenApi.OpenApiSpecResponse => ({
  ...response,
  headers: { ...response.headers, ...headersOf(status, path) },
  ...(status >= 400 ? { content: errorContent } : {})
})

export const documentResponses = (document: OpenApi.OpenAPISpec): OpenApi.OpenAPISpec =>
  mapOperations(document, (operation, path) => {
    // Only a read is answered 304: a write is never skipped because its answer looks familiar.
    const read = document.paths[path]?.get === operation
    return {
      ...operation,
      parameters: read ? [...operation.parameters, ifNoneMatch] : operation.parameters,
      responses: {
        ...Object.fromEntries(
          Object.entries(operation.responses).map(([status, response]) => [
            status,
            documented(Number(status), response, path)
          ])
        ),
        ...(read ? { 304: notModified } : {}),
        ...envelopeResponses(methodsOf(document.paths[path] ?? {}))
      }
    }
  })
