/**
 * A path that names no route exactly (`RequestPath`) is 404 `resource_missing`, whatever the
 * method, without reaching the router.
 */
import { Effect } from "effect"
import { ResourceMissing } from "../../../core/api/Errors.ts"
import * as Refusals from "./Refusals.ts"
import type { Step } from "./Step.ts"

export const step: Step = (request, next) =>
  request.route !== undefined
    ? next
    : Effect.succeed(
        Refusals.refuse(
          request,
          404,
          { schema: ResourceMissing, error: ResourceMissing.route(request.method, request.shownPath) },
          ""
        )
      )
