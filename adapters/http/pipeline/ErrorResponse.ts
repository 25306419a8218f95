/**
 * An answer with the documented JSON error body, encoded by the error's own schema: for what the
 * pipeline and the service's own routes answer outside the API's handlers.
 */
import { Schema } from "effect"
import { HttpServerResponse } from "effect/http"

export const of = <S extends Schema.Codec<unknown, unknown>>(schema: S, error: S["Type"], status: number) =>
  HttpServerResponse.jsonUnsafe(Schema.encodeSync(schema)(error), { status })
