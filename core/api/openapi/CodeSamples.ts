/**
 * Each operation's code samples (`x-codeSamples`, read by Scalar and Redoc): a curl line and the
 * SDK's call. The reference page shows these instead of the samples it would generate, which
 * fill in every optional parameter (`?vendor_id=&status=PENDING&...`, a request the API refuses
 * with a 400) and an empty `If-None-Match`. Both read the address and the key from the
 * environment, so they can be pasted as they are.
 */
import type { OpenApi } from "effect/http-api"
import { mapOperations } from "./Operations.ts"
import { pathIds } from "./PathIds.ts"

// The shell variable a path's `{id}` is taken from.
const idVariable = (path: string) => pathIds.get(path)?.variable

const shellPath = (path: string) => {
  const variable = idVariable(path)
  return variable === undefined ? path : path.replace("{id}", `$${variable}`)
}

// A write's body as a sample sends it: the required fields, with values of the right form.
const sampleBodies: Readonly<Record<string, string>> = {
  "webhooks.create": '{"url": "https://example.com/hooks", "event_types": ["receivable.created"]}',
  "webhooks.update": '{"enabled": false}',
  "webhooks.replay": '{"since": "2026-11-20T00:00:00Z"}'
}

const curl = (method: string, operationId: string, path: string) => {
  const body = sampleBodies[operationId]
  return [
    "# PARTNER_RECEIVABLES_URL: where the API is served (http://localhost:3000); PARTNER_RECEIVABLES_KEY: your key",
    `curl "$PARTNER_RECEIVABLES_URL${shellPath(path)}" \\`,
    ...(method === "get" ? [] : [`  --request ${method.toUpperCase()} \\`]),
    ...(body === undefined ? [] : [`  --header "Content-Type: application/json" --data '${body}' \\`]),
    `  --header "Authorization: Bearer $PARTNER_RECEIVABLES_KEY"`
  ].join("\n")
}

/** The SDK's package; its methods are named as the operations are (`receivables.list`, `events.get`). */
const sdkPackage = "partner-receivables-client"

const sdk = (operationId: string, path: string) => {
  const args = [
    ...(idVariable(path) === undefined ? [] : [`process.env.${idVariable(path)}`]),
    ...(sampleBodies[operationId] === undefined ? [] : [sampleBodies[operationId]])
  ]
  return [
    `import { PartnerReceivables } from ${JSON.stringify(sdkPackage)}`,
    "",
    "const client = new PartnerReceivables({",
    "  apiKey: process.env.PARTNER_RECEIVABLES_KEY,",
    "  baseUrl: process.env.PARTNER_RECEIVABLES_URL",
    "})",
    `const answer = await client.${operationId}(${args.join(", ")})`
  ].join("\n")
}

/** A sample as OpenAPI extensions spell it. */
export interface CodeSample {
  readonly lang: string
  readonly label: string
  readonly source: string
}

/** The method an operation answers on its path. */
const methodOf = (document: OpenApi.OpenAPISpec, path: string, operation: OpenApi.OpenAPISpecOperation) =>
  Object.entries(document.paths[path] ?? {}).find(([, value]) => value === operation)?.[0] ?? "get"

type WithSamples = OpenApi.OpenAPISpecOperation & { readonly "x-codeSamples"?: ReadonlyArray<CodeSample> }

export const addCodeSamples = (document: OpenApi.OpenAPISpec): OpenApi.OpenAPISpec =>
  mapOperations(
    document,
    (operation, path): WithSamples => ({
      ...operation,
      "x-codeSamples": [
        {
          lang: "shell",
          label: "curl",
          source: curl(methodOf(document, path, operation), operation.operationId, path)
        },
        { lang: "javascript", label: "partner-receivables-client", source: sdk(operation.operationId, path) }
      ]
    })
  )
