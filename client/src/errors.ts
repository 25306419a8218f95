/**
 * What the client throws: one class per kind of failure, told apart by `instanceof` or by `type`
 * (a discriminated union, `ClientError`), each carrying the API's `code`, the HTTP `status`, the
 * `Request-Id` to quote to support and, when the API asked for one, the wait in `retryAfter`.
 * Errors never carry the API key: not in their message, fields, or cause.
 */
import type { ErrorResponse } from "./wire.ts"

type CodeOf<Type extends string> = Extract<ErrorResponse["error"], { readonly type: Type }>["code"]

export interface ErrorDetails<Code extends string> {
  readonly status: number | undefined
  readonly code: Code
  readonly message: string
  readonly param?: string | undefined
  readonly requestId?: string | undefined
  readonly retryAfter?: number | undefined
  readonly cause?: unknown
}

/** The base of every error this client throws. */
export abstract class PartnerReceivablesError<Code extends string = string> extends Error {
  abstract readonly type: string
  /** The HTTP status; undefined when no answer arrived. */
  readonly status: number | undefined
  readonly code: Code
  /** The one parameter at fault, when the API names one. */
  readonly param: string | undefined
  /** The answer's `Request-Id`: quote it to support. */
  readonly requestId: string | undefined
  /** Seconds the API asked to wait (`Retry-After`), when it asked. */
  readonly retryAfter: number | undefined

  constructor(details: ErrorDetails<Code>) {
    super(details.message, details.cause === undefined ? undefined : { cause: details.cause })
    this.name = new.target.name
    this.status = details.status
    this.code = details.code
    this.param = details.param
    this.requestId = details.requestId
    this.retryAfter = details.retryAfter
  }
}

/** 400, 404 and 405: a parameter, id or route the API refuses. Retrying cannot help. */
export class InvalidRequestError extends PartnerReceivablesError<CodeOf<"invalid_request_error">> {
  override readonly type = "invalid_request_error"
}

/** 401: the key is missing, not valid, or revoked. */
export class AuthenticationError extends PartnerReceivablesError<CodeOf<"authentication_error">> {
  override readonly type = "authentication_error"
}

/** 403: the key is valid but may not do this (managing webhooks needs a key with the `webhooks` permission). */
export class PermissionError extends PartnerReceivablesError<CodeOf<"permission_error">> {
  override readonly type = "permission_error"
}

/** 429, after the client's own retries: wait `retryAfter` seconds. */
export class RateLimitError extends PartnerReceivablesError<CodeOf<"rate_limit_error">> {
  override readonly type = "rate_limit_error"
}

/**
 * 5xx, after the client's own retries for 502, 503 and 504; also an answer that is not the API's
 * (`unexpected_response`, such as a proxy's HTML page).
 */
export class ApiError extends PartnerReceivablesError<CodeOf<"api_error"> | "unexpected_response"> {
  override readonly type = "api_error"
}

/** No answer: the network failed or the attempt timed out, after the client's own retries. */
export class ConnectionError extends PartnerReceivablesError<"connection_failed" | "timeout"> {
  override readonly type = "connection_error"
}

export type ClientError =
  | InvalidRequestError
  | AuthenticationError
  | PermissionError
  | RateLimitError
  | ApiError
  | ConnectionError

const isErrorBody = (body: unknown): body is ErrorResponse => {
  const error = typeof body === "object" && body !== null ? (body as { error?: unknown }).error : undefined
  return (
    typeof error === "object" &&
    error !== null &&
    typeof (error as { code?: unknown }).code === "string" &&
    typeof (error as { message?: unknown }).message === "string"
  )
}

export interface Answer {
  readonly status: number
  readonly body: unknown
  readonly requestId: string | undefined
  readonly retryAfter: number | undefined
}

/** The error a non-2xx answer stands for: by the body's `type`, else by status. */
export const errorFromAnswer = (answer: Answer): ClientError => {
  const context = { status: answer.status, requestId: answer.requestId, retryAfter: answer.retryAfter }
  if (!isErrorBody(answer.body)) {
    const request = answer.requestId === undefined ? "" : ` (request ${answer.requestId})`
    const message = `The answer (HTTP ${answer.status}) is not the API's JSON${request}.`
    return new ApiError({ ...context, code: "unexpected_response", message })
  }
  const { error } = answer.body
  const details = { ...context, message: error.message, param: error.param }
  switch (error.type) {
    case "invalid_request_error":
      return new InvalidRequestError({ ...details, code: error.code })
    case "authentication_error":
      return new AuthenticationError({ ...details, code: error.code })
    case "permission_error":
      return new PermissionError({ ...details, code: error.code })
    case "rate_limit_error":
      return new RateLimitError({ ...details, code: error.code })
    case "api_error":
      return new ApiError({ ...details, code: error.code })
    default:
      // A type this client does not know yet: classed by status, its code kept as sent.
      return byStatus(answer.status, { ...details, code: (error as { code: string }).code } as ErrorDetails<never>)
  }
}

const byStatus = (status: number, details: ErrorDetails<never>): ClientError => {
  if (status === 401) return new AuthenticationError(details)
  if (status === 403) return new PermissionError(details)
  if (status === 429) return new RateLimitError(details)
  if (status >= 400 && status < 500) return new InvalidRequestError(details)
  return new ApiError(details)
}
