/**
 * The API grows (spec section 9): a later v1 may add a field to any object it answers, and
 * clients must tolerate it. HttpApi closes every struct (`additionalProperties: false`), which a
 * client that validates answers strictly (valibot's `strictObject` from @hey-api/openapi-ts, a
 * JSON Schema validator) turns into a refusal of the first new field. So the schemas of answers
 * are left open. Requests stay as strict as the server is: a request body's schema (a component
 * no answer refers to) keeps `additionalProperties: false`, since the service refuses a field it
 * does not define (`parameter_unknown`), and query parameters are written inline
 * (`Parameters.ts`).
 */
import type { OpenApi } from "effect/http-api"
import { type JsonObject, reachableComponents, rewrite } from "./Json.ts"
import { mapOperations } from "./Operations.ts"

type Document = OpenApi.OpenAPISpec

const open = <A>(schema: A): A =>
  rewrite(schema, (object) => {
    if (object.additionalProperties !== false) return object
    const { additionalProperties: _, ...rest } = object
    return rest
  }) as A

/** The components only request bodies refer to, directly or through other components. */
const requestOnly = (document: Document): ReadonlySet<string> => {
  const schemas = document.components.schemas
  const operations = Object.values(document.paths).flatMap((item) => Object.values(item) as Array<JsonObject>)
  const answered = reachableComponents(
    schemas,
    operations.map(({ requestBody: _, ...rest }) => rest)
  )
  const requested = reachableComponents(
    schemas,
    operations.map((operation) => operation.requestBody)
  )
  return new Set([...requested].filter((name) => !answered.has(name)))
}

export const admitNewFields = (document: Document): Document => {
  const strict = requestOnly(document)
  const opened = mapOperations(document, (operation) => ({ ...operation, responses: open(operation.responses) }))
  return {
    ...opened,
    components: {
      ...opened.components,
      schemas: Object.fromEntries(
        Object.entries(opened.components.schemas).map(([name, schema]) => [
          name,
          strict.has(name) ? schema : open(schema)
        ])
      )
    }
  }
}
