/**
 * The operations of an OpenAPI document, each rebuilt by a function that is also told its path.
 */
import type { OpenApi } from "effect/http-api"

const methods: ReadonlySet<string> = new Set<OpenApi.OpenAPISpecMethodName>([
  "get",
  "put",
  "post",
  "delete",
  "options",
  "head",
  "patch",
  "trace"
])

export const mapOperations = (
  document: OpenApi.OpenAPISpec,
  f: (operation: OpenApi.OpenAPISpecOperation, path: string) => OpenApi.OpenAPISpecOperation
): OpenApi.OpenAPISpec => ({
  ...document,
  paths: Object.fromEntries(
    Object.entries(document.paths).map(([path, item]) => [
      path,
      Object.fromEntries(
        Object.entries(item).map(([key, value]) => [
          key,
          methods.has(key) ? f(value as OpenApi.OpenAPISpecOperation, path) : value
        ])
      )
    ])
  )
})
