/**
 * Query parameters documented as the values they decode to. HttpApi documents a parameter by its
 * wire form, and every query value is text on the wire, so `limit` would be a string of digits
 * and generated clients would refuse `limit: 500`. The decoded side says what the contract
 * means (an integer from 1 to 500, 100 when omitted; a UUID; an array of two literals), and a
 * client sends it in the usual `form` style: decimal numbers, one `key=value` per array item.
 * Every parameter's description is its own, not its schema's. An id in a path carries the
 * pattern of a well-formed one (`PathIds.ts`).
 *
 * An optional query parameter also carries its example under the name `default`, marked
 * `x-disabled`: the reference page's try-it (Scalar) otherwise fills every optional parameter
 * with its default, first enum value or first example and sends it, so a first list request
 * would silently filter by `status=PENDING`. Other tools ignore the extension.
 */
import { Schema } from "effect"
import { HttpApi, type HttpApiGroup, type OpenApi } from "effect/http-api"
import { isJsonObject, type JsonObject } from "./Json.ts"
import { mapOperations } from "./Operations.ts"
import { pathIds } from "./PathIds.ts"
import { liftAnnotations } from "./Schemas.ts"

/** Each operation's query parameters, as JSON Schemas of their decoded values, by name. */
const decodedQueries = <Id extends string, Groups extends HttpApiGroup.Constraint>(
  api: HttpApi.HttpApi<Id, Groups>
) => {
  const byOperation = new Map<string, JsonObject>()
  HttpApi.reflect(api, {
    onGroup: () => {},
    onEndpoint: ({ group, endpoint }) => {
      if (endpoint.query === undefined) return
      const { schema, definitions } = Schema.toJsonSchemaDocument(Schema.toType(endpoint.query))
      // A named schema would need a component of its own; no parameter has one, and none should.
      if (Object.keys(definitions).length > 0) {
        throw new Error(`${endpoint.path}: a query parameter refers to ${Object.keys(definitions).join(", ")}`)
      }
      // Keyed by the operation id HttpApi gives it: `<group>.<endpoint>`.
      byOperation.set(`${group.identifier}.${endpoint.identifier}`, liftAnnotations(schema.properties) as JsonObject)
    }
  })
  return byOperation
}

/** The parameter described by its schema's description, where documentation tools and generators look. */
const described = (parameter: OpenApi.OpenAPISpecParameter, schema: JsonObject): OpenApi.OpenAPISpecParameter => {
  const { description, ...rest } = schema
  return typeof description === "string" ? { ...parameter, description, schema: rest } : { ...parameter, schema }
}

const documented = (
  parameter: OpenApi.OpenAPISpecParameter,
  decoded: unknown,
  path: string
): OpenApi.OpenAPISpecParameter => {
  const id = parameter.in === "path" ? pathIds.get(path) : undefined
  if (id !== undefined) return described(parameter, { ...(parameter.schema as JsonObject), pattern: id.pattern })
  if (parameter.in !== "query") return described(parameter, parameter.schema as JsonObject)
  if (!isJsonObject(decoded)) throw new Error(`The query parameter ${parameter.name} is not in the contract`)
  return described(parameter, decoded)
}

/** A value the schema offers as an example: its first example, its default, or its first literal. */
const exampleOf = (schema: JsonObject): unknown => {
  const first = (values: unknown) => (Array.isArray(values) ? values[0] : undefined)
  const own = first(schema.examples) ?? schema.default ?? first(schema.enum)
  if (own !== undefined || !isJsonObject(schema.items)) return own
  const item = exampleOf(schema.items)
  return item === undefined ? undefined : [item]
}

/** A parameter with named examples, which OpenAPI allows and HttpApi's type leaves out. */
type WithExamples = OpenApi.OpenAPISpecParameter & { readonly examples?: JsonObject }

const offInTryIt = (parameter: OpenApi.OpenAPISpecParameter): WithExamples => {
  if (parameter.in !== "query" || parameter.required === true) return parameter
  const value = exampleOf(parameter.schema as JsonObject)
  if (value === undefined) return parameter
  return { ...parameter, examples: { default: { summary: "An example, off until chosen", value, "x-disabled": true } } }
}

export const documentParameters = <Id extends string, Groups extends HttpApiGroup.Constraint>(
  api: HttpApi.HttpApi<Id, Groups>
) => {
  const queries = decodedQueries(api)
  return (document: OpenApi.OpenAPISpec): OpenApi.OpenAPISpec =>
    mapOperations(document, (operation, path) => ({
      ...operation,
      parameters: operation.parameters.map((parameter) =>
        offInTryIt(documented(parameter, queries.get(operation.operationId)?.[parameter.name], path))
      )
    }))
}
