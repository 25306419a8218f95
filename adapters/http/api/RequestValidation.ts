/**
 * Query validation to the contract's letter. HttpApi by default ignores parameters it does not
 * know and answers a bad value with an empty 400; here an unknown parameter (a typo such as
 * `vendorId` must not silently widen a result) and a bad value both become the documented 400
 * body naming the parameter. A request body's field the endpoint does not define is
 * `parameter_unknown` too, where the endpoint's bodies are strict.
 */
import { Effect, Layer, Predicate, SchemaAST, SchemaIssue } from "effect"
import { HttpServerRequest } from "effect/http"
import { type HttpApiEndpoint, HttpApiError } from "effect/http-api"
import { InvalidRequest } from "../../../core/api/Errors.ts"
import { RequestValidation } from "../../../core/api/Security.ts"

const formatIssues = SchemaIssue.makeFormatterStandardSchemaV1()

/** The first parameter a query schema failure names, and what was expected of it. */
const toInvalidRequest = (error: HttpApiError.HttpApiSchemaError, search: URLSearchParams): InvalidRequest => {
  const [first] = formatIssues(error.cause.issue).issues
  const key = first?.path?.[0]
  const param = Predicate.isObject(key) && "key" in key ? String(key.key) : String(key ?? error.kind.toLowerCase())
  // A body's field the endpoint does not define (strict bodies), as the formatter words it.
  if (first?.message === "Expected no excess property") return InvalidRequest.parameterUnknown(param)
  // A repeated scalar reaches the schema as an array; say so rather than "expected string".
  if (search.getAll(param).length > 1 && first?.path?.length === 1) {
    return InvalidRequest.parameterInvalid(param, `"${param}" is given more than once; give it once.`)
  }
  const expected = (first?.message ?? "a valid value").replace(/^Expected /, "")
  return InvalidRequest.parameterInvalid(param, `Invalid value for "${param}": expected ${expected}.`)
}

/** The parameter names an endpoint's query schema defines. */
const queryKeys = (endpoint: HttpApiEndpoint.Top): ReadonlySet<string> => {
  const ast = endpoint.query?.ast
  return new Set(
    ast !== undefined && SchemaAST.isObjects(ast) ? ast.propertySignatures.map((field) => String(field.name)) : []
  )
}

export const layer = Layer.succeed(
  RequestValidation,
  RequestValidation.of((httpEffect, { endpoint }) =>
    Effect.gen(function* () {
      const request = yield* HttpServerRequest.HttpServerRequest
      const known = queryKeys(endpoint)
      const search = new URL(request.url, "http://localhost").searchParams
      for (const name of search.keys()) {
        if (!known.has(name)) return yield* InvalidRequest.parameterUnknown(name)
      }
      return yield* httpEffect.pipe(
        Effect.catch((error) =>
          Effect.fail(HttpApiError.HttpApiSchemaError.is(error) ? toInvalidRequest(error, search) : error)
        )
      )
    })
  )
)
