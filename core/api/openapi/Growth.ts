/**
 * The API grows (spec section 9): a later v1 may add a field to any object it answers, and
 * clients must tolerate it. HttpApi closes every struct (`additionalProperties: false`), which a
 * client that validates answers strictly (valibot's `strictObject` from @hey-api/openapi-ts, a
 * JSON Schema validator) turns into a refusal of the first new field. So the schemas of answers
 * are left open. Requests stay as strict as the server is: their only inputs are parameters,
 * written inline (`Parameters.ts`), never through a component.
 */
import type { OpenApi } from "effect/http-api"
import { rewrite } from "./Json.ts"
import { mapOperations } from "./Operations.ts"

type Document = OpenApi.OpenAPISpec

const open = <A>(schema: A): A =>
  rewrite(schema, (object) => {
    if (object.additionalProperties !== false) return object
    const { additionalProperties: _, ...rest } = object
    return rest
  }) as A

export const admitNewFields = (document: Document): Document => {
  const opened = mapOperations(document, (operation) => ({ ...operation, responses: open(operation.responses) }))
  return {
    ...opened,
    components: { ...opened.components, schemas: open(opened.components.schemas) }
  }
}
