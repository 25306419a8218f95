/**
 * The API's two middlewares as contracts. `Authorization` reads the bearer key and provides the
 * caller's organization; `RequestValidation` turns bad and unknown query parameters into the
 * documented 400 body. Implementations live in the HTTP adapter.
 */
import { Context } from "effect"
import { HttpApiMiddleware, HttpApiSecurity, OpenApi } from "effect/http-api"
import type { Permission } from "../access/domain/ApiKey.ts"
import type { OrgId } from "../shared/domain/Ids.ts"
import { AuthenticationFailed, InvalidRequest, RateLimited } from "./Errors.ts"

/** Who is calling: the organization that owns the key, the key itself (for audit), and what it may do beyond reading. */
export interface Principal {
  readonly orgId: OrgId
  readonly keyId: string
  /** Absent: nothing beyond reading. */
  readonly permissions?: ReadonlyArray<Permission> | undefined
}

export class CurrentPrincipal extends Context.Service<CurrentPrincipal, Principal>()("core/api/CurrentPrincipal") {}

const bearer = HttpApiSecurity.bearer.pipe(
  HttpApiSecurity.annotateMerge(
    OpenApi.annotations({
      description: "Your organization's API key, as `Authorization: Bearer <API_KEY>`.",
      format: "API key"
    })
  )
)

export class Authorization extends HttpApiMiddleware.Service<
  Authorization,
  {
    provides: CurrentPrincipal
    requires: never
  }
>()("core/api/Authorization", {
  requiredForClient: true,
  security: { bearer },
  error: [AuthenticationFailed, RateLimited]
}) {}

export class RequestValidation extends HttpApiMiddleware.Service<RequestValidation>()("core/api/RequestValidation", {
  error: InvalidRequest
}) {}
