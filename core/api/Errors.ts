/**
 * The API's error responses (docs/decisions.md): every non-2xx answer is
 * `{"error": {"type", "code", "message", "param"?}}`. One class per HTTP status; `param` names the
 * single parameter at fault, when there is one.
 */
import { Schema } from "effect"

const body = <const Type extends string, const Codes extends ReadonlyArray<string>>(type: Type, codes: Codes) =>
  Schema.Struct({
    type: Schema.Literal(type),
    code: Schema.Literals(codes),
    message: Schema.String,
    param: Schema.optionalKey(Schema.String)
  })

export class InvalidRequest extends Schema.Error<InvalidRequest>("InvalidRequest")(
  { error: body("invalid_request_error", ["parameter_invalid", "parameter_unknown", "cursor_expired"]) },
  {
    httpApiStatus: 400,
    description:
      "A parameter has a bad value, or is not one the endpoint defines; or an events cursor is older than the retention or of a database restored since (`cursor_expired`)"
  }
) {
  /**
   * An events cursor into what retention removed, or one a restored database's earlier
   * incarnation gave: the client has missed events and must reload.
   */
  static cursorExpired(after: number, reason: "retention" | "restore", through: number) {
    const why =
      reason === "retention"
        ? `are no longer all kept (events up to ${through} were removed by retention)`
        : "cannot follow: the database was restored from a backup, and this sequence was given before the restore to events it does not hold"
    return new InvalidRequest({
      error: {
        type: "invalid_request_error",
        code: "cursor_expired",
        message: `Events after ${after} ${why}: do a full load of /v1/receivables?verified_since=all, noting latest_sequence from /v1/events first, then follow the feed from there.`,
        param: "after"
      }
    })
  }
  /** A request body past the endpoint's bound, which is then not read further. */
  static bodyTooLarge(bound: string) {
    return new InvalidRequest({
      error: {
        type: "invalid_request_error",
        code: "parameter_invalid",
        message: `The request body is larger than ${bound}, the most this endpoint reads.`
      }
    })
  }
  /** A request body whose bytes are not UTF-8: never read with the bad bytes replaced. */
  static bodyNotUtf8() {
    return new InvalidRequest({
      error: {
        type: "invalid_request_error",
        code: "parameter_invalid",
        message: "The request body is not valid UTF-8: send JSON encoded in UTF-8."
      }
    })
  }
  static parameterInvalid(param: string, message: string) {
    return new InvalidRequest({ error: { type: "invalid_request_error", code: "parameter_invalid", message, param } })
  }
  static parameterUnknown(param: string) {
    return new InvalidRequest({
      error: {
        type: "invalid_request_error",
        code: "parameter_unknown",
        message: `Unknown parameter "${param}": this endpoint does not define it.`,
        param
      }
    })
  }
}

export type AuthenticationFailure = "api_key_missing" | "api_key_invalid" | "api_key_revoked"

const authenticationMessages: Record<AuthenticationFailure, string> = {
  api_key_missing: "No API key: send it as `Authorization: Bearer <API_KEY>`.",
  api_key_invalid: "The API key is not valid.",
  api_key_revoked: "The API key has been revoked."
}

export class AuthenticationFailed extends Schema.Error<AuthenticationFailed>("AuthenticationFailed")(
  { error: body("authentication_error", ["api_key_missing", "api_key_invalid", "api_key_revoked"]) },
  { httpApiStatus: 401, description: "The API key is missing, not valid, or revoked" }
) {
  static of(code: AuthenticationFailure) {
    return new AuthenticationFailed({
      error: { type: "authentication_error", code, message: authenticationMessages[code] }
    })
  }
}

export class PermissionDenied extends Schema.Error<PermissionDenied>("PermissionDenied")(
  { error: body("permission_error", ["permission_denied"]) },
  {
    httpApiStatus: 403,
    description: "The API key is valid but may not do this: keys are read-only unless created with a permission"
  }
) {
  static of(permission: string, action: string) {
    return new PermissionDenied({
      error: {
        type: "permission_error",
        code: "permission_denied",
        message: `This API key may not ${action}: it needs the "${permission}" permission. Keys are read-only unless created with it; ask for a key that has it.`
      }
    })
  }
}

export class ResourceMissing extends Schema.Error<ResourceMissing>("ResourceMissing")(
  { error: body("invalid_request_error", ["resource_missing"]) },
  {
    httpApiStatus: 404,
    description: "No such route, or no such receivable, event, webhook endpoint or delivery in your organization"
  }
) {
  static event(id: string) {
    return new ResourceMissing({
      error: {
        type: "invalid_request_error",
        code: "resource_missing",
        message: `No such event: "${id}".`,
        param: "id"
      }
    })
  }
  static receivable(id: string) {
    return new ResourceMissing({
      error: {
        type: "invalid_request_error",
        code: "resource_missing",
        message: `No such receivable: "${id}".`,
        param: "id"
      }
    })
  }
  static route(method: string, path: string) {
    return new ResourceMissing({
      error: { type: "invalid_request_error", code: "resource_missing", message: `No such route: ${method} ${path}.` }
    })
  }
}

export class MethodNotAllowed extends Schema.Error<MethodNotAllowed>("MethodNotAllowed")(
  { error: body("invalid_request_error", ["method_not_allowed"]) },
  {
    httpApiStatus: 405,
    description: "The path does not answer this method: the methods it answers are in the Allow header"
  }
) {
  /** `allowed`: the path's methods; GET alone where the API is read-only. */
  static of(method: string, path: string, allowed: ReadonlyArray<string> = ["GET"]) {
    return new MethodNotAllowed({
      error: {
        type: "invalid_request_error",
        code: "method_not_allowed",
        message:
          allowed.length === 1 && allowed[0] === "GET"
            ? `${method} is not allowed on ${path}: the API is read-only, use GET.`
            : `${method} is not allowed on ${path}: use ${allowed.join(", ")}.`
      }
    })
  }
}

export class RequestTimeout extends Schema.Error<RequestTimeout>("RequestTimeout")(
  { error: body("invalid_request_error", ["request_timeout"]) },
  {
    httpApiStatus: 408,
    description:
      "The request did not arrive in time: its body was still arriving when the request deadline passed (or Node.js's own limits on the headers and the whole request). The connection is closed."
  }
) {
  /** A body still arriving when the request deadline (`seconds`) passed. */
  static body(seconds: number) {
    return new RequestTimeout({
      error: {
        type: "invalid_request_error",
        code: "request_timeout",
        message: `The request body did not arrive within ${seconds} s; send it again, whole.`
      }
    })
  }
}

export class UnsupportedMediaType extends Schema.Error<UnsupportedMediaType>("UnsupportedMediaType")(
  { error: body("invalid_request_error", ["content_type_unsupported"]) },
  {
    httpApiStatus: 415,
    description: "The request body is not JSON: send it with `Content-Type: application/json`"
  }
) {
  static of(contentType: string, accepted: ReadonlyArray<string>) {
    return new UnsupportedMediaType({
      error: {
        type: "invalid_request_error",
        code: "content_type_unsupported",
        message: `The request body's Content-Type is ${contentType}: this endpoint reads ${accepted.join(", ")}.`
      }
    })
  }
}

export class RateLimited extends Schema.Error<RateLimited>("RateLimited")(
  { error: body("rate_limit_error", ["rate_limited"]) },
  {
    httpApiStatus: 429,
    description:
      "Too many requests with this key: wait the seconds of the Retry-After header. RateLimit-Limit, RateLimit-Remaining and RateLimit-Reset come with every authenticated response."
  }
) {
  static of(retryAfterSeconds: number) {
    return new RateLimited({
      error: {
        type: "rate_limit_error",
        code: "rate_limited",
        message: `Too many requests with this key; retry after ${retryAfterSeconds} s.`
      }
    })
  }
  /** Too many requests of one organization, all its keys together. */
  static organization(retryAfterSeconds: number) {
    return new RateLimited({
      error: {
        type: "rate_limit_error",
        code: "rate_limited",
        message: `Too many requests of this organization, all its keys together (the organization's rate limit); retry after ${retryAfterSeconds} s.`
      }
    })
  }
  /** Too many requests from one address that no accepted key vouched for. */
  static address(retryAfterSeconds: number) {
    return new RateLimited({
      error: {
        type: "rate_limit_error",
        code: "rate_limited",
        message: `Too many requests without an accepted key from this address; retry after ${retryAfterSeconds} s.`
      }
    })
  }
  /** Too many requests of one key, or of one organization's keys together, being answered at once. */
  static inFlight(scope: "key" | "organization", retryAfterSeconds: number) {
    return new RateLimited({
      error: {
        type: "rate_limit_error",
        code: "rate_limited",
        message: `Too many requests ${scope === "key" ? "with this key" : "of this organization"} are being answered at once; retry after ${retryAfterSeconds} s.`
      }
    })
  }
}

export class ServiceUnavailable extends Schema.Error<ServiceUnavailable>("ServiceUnavailable")(
  { error: body("api_error", ["service_unavailable"]) },
  {
    httpApiStatus: 503,
    description:
      "The service cannot answer right now (its database cannot be reached, the request could not be recorded for audit, or not answered within the request deadline): retry after the seconds of the Retry-After header, if any"
  }
) {
  static deadline(seconds: number) {
    return new ServiceUnavailable({
      error: {
        type: "api_error",
        code: "service_unavailable",
        message: `The request could not be answered within ${seconds} s; retry later.`
      }
    })
  }
  static databaseUnavailable() {
    return new ServiceUnavailable({
      error: {
        type: "api_error",
        code: "service_unavailable",
        message: "The service's database cannot be reached right now; retry later."
      }
    })
  }
  static endpointBusy(id: string) {
    return new ServiceUnavailable({
      error: {
        type: "api_error",
        code: "service_unavailable",
        message: `The webhook endpoint "${id}" has as many attempts in flight as it may; retry the test shortly.`
      }
    })
  }
  static auditUnavailable(requestId: string) {
    return new ServiceUnavailable({
      error: {
        type: "api_error",
        code: "service_unavailable",
        message: `The request could not be recorded for audit, so it was not answered; retry (request ${requestId}).`
      }
    })
  }
}

export class InternalError extends Schema.Error<InternalError>("InternalError")(
  { error: body("api_error", ["internal_error"]) },
  { httpApiStatus: 500, description: "Something went wrong on our side" }
) {
  static of(requestId: string) {
    return new InternalError({
      error: {
        type: "api_error",
        code: "internal_error",
        message: `Something went wrong on our side; quote request ${requestId} to support.`
      }
    })
  }
}

/**
 * What Node.js's listener refuses before any route sees the request, answered in the same body
 * by `adapters/http/Rejections.ts`: a request that cannot be parsed, or whose headers are too
 * large (one that is too slow is a `RequestTimeout`).
 */
const listenerCodes = ["request_malformed", "request_headers_too_large"] as const

const errorClasses = [
  InvalidRequest,
  AuthenticationFailed,
  PermissionDenied,
  ResourceMissing,
  MethodNotAllowed,
  RequestTimeout,
  UnsupportedMediaType,
  RateLimited,
  InternalError,
  ServiceUnavailable
] as const

/**
 * Every error body the service sends, as one schema: the OpenAPI document gives it to every error
 * status, so that a generated client has one error type whose `code` it can switch on.
 */
export const ErrorBody = Schema.Struct({
  error: Schema.Struct({
    type: Schema.Literals([...new Set(errorClasses.map((error) => error.fields.error.fields.type.literal))]).annotate({
      description: "The class of error"
    }),
    code: Schema.Literals([
      ...errorClasses.flatMap((error) => error.fields.error.fields.code.literals),
      ...listenerCodes
    ]).annotate({ description: "What went wrong, for programs to branch on" }),
    message: Schema.String.annotate({ description: "What went wrong, for a person to read" }),
    param: Schema.optionalKey(Schema.String).annotateKey({ description: "The parameter at fault, when one is" })
  })
}).annotate({ identifier: "Error" })
